#pragma once
// Internal to the scenario room (scenario.cpp reads, scenariocheck.cpp validates,
// scenariowrite.cpp writes): the file format's version, the words each enum field
// is spelt with in the file (the spec's lists, in the enums' order) and the
// hardware.shard_group check that reading and validation share.
#include "core/scenario/scenario.h"

#include <array>
#include <cstddef>
#include <string>
#include <string_view>

namespace gp::scenariowords {

inline constexpr int kFormatVersion = 1;
inline constexpr std::array kModes{std::string_view("training"), std::string_view("inference")};
inline constexpr std::array kRuntimes{std::string_view("eager"), std::string_view("optimized"), std::string_view("serving")};
inline constexpr std::array kMethods{std::string_view("full"), std::string_view("lora"), std::string_view("qlora")};
inline constexpr std::array kTrainPrecisions{std::string_view("fp32"), std::string_view("tf32"), std::string_view("amp_bf16"),
                                      std::string_view("amp_fp16"), std::string_view("bf16"), std::string_view("fp8")};
inline constexpr std::array kOptimizers{std::string_view("adamw"), std::string_view("sgd"), std::string_view("sgd_momentum"),
                                 std::string_view("adamw_8bit")};
inline constexpr std::array kCheckpointing{std::string_view("none"), std::string_view("selective"), std::string_view("full")};
inline constexpr std::array kInferPrecisions{std::string_view("fp32"), std::string_view("fp16"), std::string_view("bf16"),
                                      std::string_view("fp8"),  std::string_view("int8"), std::string_view("int4"),
                                      std::string_view("fp4")};
// FP4 is a weight format (NVFP4): the KV cache takes the others.
inline constexpr std::size_t kKvPrecisionCount = 6;
inline constexpr std::array kPricingModels{std::string_view("on_demand"), std::string_view("spot"),
                                    std::string_view("reserved"), std::string_view("purchase")};
inline constexpr std::array kLoraTargets{std::string_view("q_proj"),    std::string_view("k_proj"),
                                  std::string_view("v_proj"),    std::string_view("o_proj"),
                                  std::string_view("gate_proj"), std::string_view("up_proj"),
                                  std::string_view("down_proj")};

/// Why hardware.shard_group (HSDP: shard inside groups of N GPUs, replicate
/// across groups) does not fit the layout; empty when it does or is unset.
std::string shardGroupProblem(const Hardware& hw);

} // namespace gp::scenariowords
