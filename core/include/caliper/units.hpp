#pragma once
// Unit conversions. GiB = 2^30 bytes, GB = 10^9 bytes (docs/CONTRACT.md).

namespace caliper {

constexpr double kBytesPerGiB = 1073741824.0;
constexpr double kBytesPerGB = 1e9;
constexpr double kSecondsPerHour = 3600.0;
constexpr double kHoursPerMonth = 8760.0 / 12.0;  // an average month, 730 h
constexpr double kFlopsPerTflop = 1e12;  // TFLOP/s -> FLOP/s

inline double bytesToGiB(double bytes) { return bytes / kBytesPerGiB; }
inline double gibToBytes(double gib) { return gib * kBytesPerGiB; }
inline double gbToGiB(double gb) { return gb * kBytesPerGB / kBytesPerGiB; }
// Link rates: Gb/s (gigabits, how networks are sold) vs GB/s (gigabytes).
constexpr double kBitsPerByte = 8.0;
inline double gbpsToGBps(double gigabitsPerS) { return gigabitsPerS / kBitsPerByte; }

}  // namespace caliper
