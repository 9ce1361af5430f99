#pragma once
// Unit conversions. GiB = 2^30 bytes, GB = 10^9 bytes (CONTRACT.md).

namespace caliper {

constexpr double kBytesPerGiB = 1073741824.0;
constexpr double kBytesPerGB = 1e9;
constexpr double kSecondsPerHour = 3600.0;

inline double bytesToGiB(double bytes) { return bytes / kBytesPerGiB; }
inline double gibToBytes(double gib) { return gib * kBytesPerGiB; }
inline double gbToGiB(double gb) { return gb * kBytesPerGB / kBytesPerGiB; }

}  // namespace caliper
