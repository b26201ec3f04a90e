// Softmax reference kernel (one 256-thread block per row, double accumulation).
extern "C" __global__ void ktune_op_kernel(const T* x, float* y, int rows, int cols) {
    __shared__ double red[256];
    const long long row = blockIdx.x;
    const T* xr = x + row * cols;
    double m = -1e300;
    for (int j = threadIdx.x; j < cols; j += 256)
        m = fmax(m, (double)to_f(xr[j]));
    red[threadIdx.x] = m;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] = fmax(red[threadIdx.x], red[threadIdx.x + o]);
        __syncthreads();
    }
    m = red[0];
    __syncthreads();
    double s = 0;
    for (int j = threadIdx.x; j < cols; j += 256)
        s += exp((double)to_f(xr[j]) - m);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    s = red[0];
    for (int j = threadIdx.x; j < cols; j += 256)
        y[row * cols + j] = (float)(exp((double)to_f(xr[j]) - m) / s);
}
