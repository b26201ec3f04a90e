// A kernel whose largest block does not compile: `ktune kernel check --sample` must find it.
template <int BLOCK>
__global__ void corner(float* y, int n) {
    static_assert(BLOCK != 128, "BLOCK=128 is the corner this test expects to fail");
    const int i = blockIdx.x * BLOCK + threadIdx.x;
    if (i < n) y[i] = 1.0f;
}
