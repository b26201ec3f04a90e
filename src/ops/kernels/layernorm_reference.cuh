// LayerNorm reference kernel (one 256-thread block per row, double accumulation).
extern "C" __global__ void ktune_op_kernel(const T* x, const T* gamma, const T* beta, float* y,
                                           int rows, int cols) {
    __shared__ double red[256];
    const long long row = blockIdx.x;
    const T* xr = x + row * cols;
    double s = 0;
    for (int j = threadIdx.x; j < cols; j += 256)
        s += (double)to_f(xr[j]);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    const double mean = red[0] / cols;
    __syncthreads();
    double q = 0;
    for (int j = threadIdx.x; j < cols; j += 256) {
        const double d = (double)to_f(xr[j]) - mean;
        q += d * d;
    }
    red[threadIdx.x] = q;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    const double rstd = 1.0 / sqrt(red[0] / cols + 1e-5);
    for (int j = threadIdx.x; j < cols; j += 256)
        y[row * cols + j] = (float)(((double)to_f(xr[j]) - mean) * rstd * (double)to_f(gamma[j]) +
                                    (double)to_f(beta[j]));
}
