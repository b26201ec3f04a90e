// Does not compile: the corpus's source_compile_error case.
template <int BLOCK>
__global__ void scale(const float* x, float* y, int n) {
    y[0] = undefined_name;
}
