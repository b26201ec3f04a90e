#pragma once
// See nvtx_launches.cu: a fixed NVTX + launch sequence; false when CUDA failed.
bool run_nvtx_sequence();
