// Transpose reference kernel.
extern "C" __global__ void ktune_op_kernel(const T* in, float* out, int rows, int cols) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= (long long)rows * cols) return;
    const long long r = i / cols, c = i % cols;
    out[c * rows + r] = to_f(in[i]);
}
