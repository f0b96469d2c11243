#pragma once
#include <string_view>

namespace gp {

/// Numeric formats the tensor units execute (compute) or store (weights, KV).
enum class DType { FP32, TF32, FP16, BF16, FP8, INT8, INT4, FP4 };

/// Bytes one element takes in memory (TF32 is stored as FP32; INT4/FP4 half a byte).
double bytesPerElement(DType t);
std::string_view dtypeName(DType t);

} // namespace gp
