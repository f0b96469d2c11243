#include "core/base/precision.h"

namespace gp {

double bytesPerElement(DType t)
{
    switch (t) {
    case DType::FP32:
    case DType::TF32: // TF32 is a tensor-core input mode; the data stays 32-bit in memory
        return 4.0;
    case DType::FP16:
    case DType::BF16:
        return 2.0;
    case DType::FP8:
    case DType::INT8:
        return 1.0;
    case DType::INT4:
    case DType::FP4:
        return 0.5; // two values per byte; block scales are the caller's business
    }
    return 4.0; // unreachable for valid enumerators; the widest format is the safe guess
}

std::string_view dtypeName(DType t)
{
    switch (t) {
    case DType::FP32: return "fp32";
    case DType::TF32: return "tf32";
    case DType::FP16: return "fp16";
    case DType::BF16: return "bf16";
    case DType::FP8: return "fp8";
    case DType::INT8: return "int8";
    case DType::INT4: return "int4";
    case DType::FP4: return "fp4";
    }
    return "unknown";
}

} // namespace gp
