#pragma once
#include <string_view>

namespace gp {

/// Numeric formats the tensor units execute (compute) or store (weights, KV).
enum class DType { FP32, TF32, FP16, BF16, FP8, INT8, INT4, FP4 };

/// Bytes one element takes in memory (TF32 is stored as FP32; INT4/FP4 half a byte).
double bytesPerElement(DType t);
std::string_view dtypeName(DType t);

/// Whether work computed in `t` is an 8-bit-or-narrower format (fp8, fp4, int8),
/// whose speed an architecture family scales with its gemm8 scale (16-bit and
/// wider formats use gemm16).
constexpr bool isEightBitCompute(DType t) { return t == DType::FP8 || t == DType::FP4 || t == DType::INT8; }

} // namespace gp
