#pragma once
// Umbrella header: everything an embedding application needs.
#include "ktune/core/check.hpp"
#include "ktune/core/clocks.hpp"
#include "ktune/core/config.hpp"
#include "ktune/core/cuda_handles.hpp"
#include "ktune/core/device.hpp"
#include "ktune/core/error.hpp"
#include "ktune/core/gpu_peaks.hpp"
#include "ktune/core/handle.hpp"
#include "ktune/core/version.hpp"
