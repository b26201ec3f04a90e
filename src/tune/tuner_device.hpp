#pragma once
// The tuner's device query without a CUDA context of its own: query_devices() (cuInit, NVML
// start-up, properties: tens of ms on the critical path of a warm tune, and a second driver
// client beside the worker's start) is recorded once per boot, driver and device selection in
// the cubin cache directory and read back from there.
#include "ktune/core/device.hpp"

#include <filesystem>
#include <string>

namespace ktune::tune::detail {

/// query_devices(), or its record when one exists for this boot (kernel boot id), this driver
/// (/proc/driver/nvidia/version), this CUDA runtime and this device selection
/// (CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER). A query that finds a GPU is recorded; without a
/// driver nothing is. *from_file says which answered; *file names the record (or "").
device_query device_query_cached(bool* from_file = nullptr, std::filesystem::path* file = nullptr);

/// The record's text form and back (tests; the reader throws error{input} on a bad record).
std::string device_query_to_json(const device_query& q);
device_query device_query_from_json(const std::string& text);

} // namespace ktune::tune::detail
