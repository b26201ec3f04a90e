// Rowsum reference kernel (double accumulation).
extern "C" __global__ void ktune_op_kernel(const T* x, float* y, int rows, int cols) {
    __shared__ double red[256];
    const long long row = blockIdx.x;
    double s = 0;
    for (int j = threadIdx.x; j < cols; j += 256)
        s += (double)to_f(x[row * cols + j]);
    red[threadIdx.x] = s;
    __syncthreads();
    for (int o = 128; o > 0; o >>= 1) {
        if (threadIdx.x < o) red[threadIdx.x] += red[threadIdx.x + o];
        __syncthreads();
    }
    if (threadIdx.x == 0) y[row] = (float)red[0];
}
