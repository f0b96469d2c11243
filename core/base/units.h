#pragma once
// One place for unit conversions: memory in bytes inside the core, GiB (2^30)
// at the boundaries, GB (1e9) only where a datasheet says GB.

namespace gp::units {

inline constexpr double kKiB = 1024.0;
inline constexpr double kMiB = 1024.0 * 1024.0;
inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
inline constexpr double kGB = 1e9;
inline constexpr double kTera = 1e12;

constexpr double bytesToGiB(double bytes) { return bytes / kGiB; }
constexpr double bytesToMiB(double bytes) { return bytes / kMiB; }
constexpr double gibToBytes(double gib) { return gib * kGiB; }
constexpr double mibToBytes(double mib) { return mib * kMiB; }
constexpr double gbToBytes(double gb) { return gb * kGB; }
constexpr double tflopsToFlops(double tflops) { return tflops * kTera; }
constexpr double gbpsToBytesPerS(double gbps) { return gbps * kGB; }

} // namespace gp::units
