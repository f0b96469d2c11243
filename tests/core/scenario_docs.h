#pragma once
// Scenario documents for the scenario tests (tst_scenario, tst_scenarioforms):
// the model forms (preset, explicit, hf_config, params) and workloads as JSON
// text, with the helpers that parse and patch them.
#include "tests/common/builtingpu.h"
#include "tests/common/expecterror.h"
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/scenario/scenario.h"
#include "tests/common/hfconfigs.h"

#include <nlohmann/json.hpp>
#include <cmath>
#include <string>
#include <vector>
#include <QtTest>

using nlohmann::json;

// ---------------------------------------------------------------------------
// Model forms

inline const char* kLlama31_8bPreset = R"({"preset": "llama-3.1-8b"})";
inline const char* kLlama31_8bExplicit = R"({"family": "decoder", "layers": 32, "hidden": 4096, "heads": 32,
  "kv_heads": 8, "head_dim": 128, "ffn_hidden": 14336, "ffn": "swiglu", "vocab": 128256,
  "tied_embeddings": false, "positional": "rope", "max_positions": 131072})";
inline const std::string kLlama31_8bHfText = gp::test::hfModel(gp::test::kLlama31_8bConfig);
inline const char* const kLlama31_8bHf = kLlama31_8bHfText.c_str();

inline const char* kGpt2Preset = R"({"preset": "gpt2-124m"})";
inline const char* kGpt2Explicit = R"({"family": "decoder", "layers": 12, "hidden": 768, "heads": 12,
  "ffn_hidden": 3072, "ffn": "gelu", "vocab": 50257, "tied_embeddings": true, "positional": "learned",
  "max_positions": 1024})";
inline const std::string kGpt2HfText = gp::test::hfModel(gp::test::kGpt2Config);
inline const char* const kGpt2Hf = kGpt2HfText.c_str();

inline const char* kMixtralPreset = R"({"preset": "mixtral-8x7b"})";
inline const char* kMixtralExplicit = R"({"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
  "ffn_hidden": 14336, "vocab": 32000, "max_positions": 32768,
  "moe": {"experts": 8, "active": 2, "expert_ffn_hidden": 14336}})";
inline const std::string kMixtralHfText = gp::test::hfModel(gp::test::kMixtralConfig);
inline const char* const kMixtralHf = kMixtralHfText.c_str();

inline const char* kBertPreset = R"({"preset": "bert-base"})";
inline const char* kBertExplicit = R"({"family": "encoder", "layers": 12, "hidden": 768, "heads": 12,
  "ffn_hidden": 3072, "ffn": "gelu", "vocab": 30522, "tied_embeddings": true, "positional": "learned",
  "max_positions": 512})";
inline const std::string kBertHfText = gp::test::hfModel(gp::test::kBertConfig);
inline const char* const kBertHf = kBertHfText.c_str();

// ---------------------------------------------------------------------------
// Workloads

inline const char* kTrainFull = R"({"mode": "training", "runtime": "eager",
  "training": {"method": "full", "precision": "amp_bf16", "optimizer": "adamw", "micro_batch": 2,
               "seq_len": 512, "activation_checkpointing": "none", "dataset_tokens": 1e9, "epochs": 1}})";
inline const char* kTrainLora = R"({"mode": "training", "runtime": "eager",
  "training": {"method": "lora", "lora_rank": 16, "lora_targets": ["q_proj", "k_proj", "v_proj", "o_proj"],
               "precision": "bf16", "optimizer": "adamw", "micro_batch": 2, "seq_len": 512,
               "activation_checkpointing": "full", "dataset_tokens": 1e8, "epochs": 1}})";
inline const char* kTrainOptimizedSelective = R"({"mode": "training", "runtime": "optimized",
  "training": {"method": "full", "precision": "amp_bf16", "optimizer": "adamw_8bit", "micro_batch": 4,
               "seq_len": 512, "grad_accum": 4, "activation_checkpointing": "selective", "dataset_tokens": 1e9}})";
inline const char* kInferOptimized = R"({"mode": "inference", "runtime": "optimized",
  "inference": {"precision": "bf16", "batch": 8, "prompt_tokens": 512, "output_tokens": 256}})";
inline const char* kInferEagerInt8 = R"({"mode": "inference", "runtime": "eager",
  "inference": {"precision": "int8", "kv_precision": "fp8", "batch": 4, "prompt_tokens": 256, "output_tokens": 128}})";

inline std::string scenarioText(const char* model, const char* workload, const char* hardware = nullptr)
{
    json doc = {{"format", "gpuplanner-scenario"}, {"version", 1}, {"name", "test"}};
    doc["model"] = json::parse(model);
    doc["workload"] = json::parse(workload);
    if (hardware)
        doc["hardware"] = json::parse(hardware);
    return doc.dump();
}

using gp::test::expectInputError;

/// For QVERIFY2 messages (evaluated even when the check passes).
inline QByteArray warningsText(const gp::ParsedScenario& p)
{
    QByteArray s;
    for (const auto& w : p.warnings)
        s += QByteArray::fromStdString(w.text()) + "\n";
    return s;
}

inline QByteArray problemsText(const gp::InputError& e)
{
    QByteArray s;
    for (const auto& d : e.problems())
        s += QByteArray::fromStdString(d.text()) + "\n";
    return s;
}

inline bool relNear(double a, double b, double tol)
{
    return std::abs(a - b) <= tol * std::max(std::abs(a), std::abs(b)) || (a == 0 && b == 0);
}

#define QCOMPARE_REL(actual, expected, tol)                                                                           \
    QVERIFY2(relNear((actual), (expected), (tol)),                                                                    \
             QByteArray(#actual) + " = " + QByteArray::number((actual), 'g', 15) + ", expected "                       \
                 + QByteArray::number((expected), 'g', 15))

/// For the enums that gp::toString names (QCOMPARE would pick that up through ADL).
template <typename E>
inline QString enumName(E e)
{
    const std::string_view v = gp::toString(e);
    return QString::fromUtf8(v.data(), qsizetype(v.size()));
}
#define QCOMPARE_ENUM(actual, expected) QCOMPARE(enumName(actual), enumName(expected))

/// Compares every field a scenario file carries (not the resolved model, which
/// the caller checks by its shape).
inline void compareScenarios(const gp::Scenario& a, const gp::Scenario& b)
{
    QCOMPARE(a.name, b.name);
    QCOMPARE(a.modelSpec.form, b.modelSpec.form);
    QCOMPARE(a.modelSpec.presetId, b.modelSpec.presetId);
    if (a.modelSpec.form == gp::ModelSpec::Form::Explicit || a.modelSpec.form == gp::ModelSpec::Form::HfConfig)
        QCOMPARE(json::parse(a.modelSpec.jsonText), json::parse(b.modelSpec.jsonText));
    QCOMPARE(a.modelSpec.params, b.modelSpec.params);
    QCOMPARE(a.modelSpec.family.has_value(), b.modelSpec.family.has_value());
    if (a.modelSpec.family)
        QCOMPARE(*a.modelSpec.family, *b.modelSpec.family);
    QCOMPARE(a.modelSpec.moe.experts, b.modelSpec.moe.experts);
    QCOMPARE(a.modelSpec.moe.active, b.modelSpec.moe.active);
    QCOMPARE(a.modelSpec.moe.shared, b.modelSpec.moe.shared);

    QCOMPARE_ENUM(a.mode, b.mode);
    QCOMPARE_ENUM(a.runtime, b.runtime);
    const auto& ta = a.training;
    const auto& tb = b.training;
    QCOMPARE_ENUM(ta.method, tb.method);
    QCOMPARE(ta.loraRank, tb.loraRank);
    QCOMPARE(ta.loraTargets, tb.loraTargets);
    QCOMPARE_ENUM(ta.precision, tb.precision);
    QCOMPARE_ENUM(ta.optimizer, tb.optimizer);
    QCOMPARE(ta.microBatch, tb.microBatch);
    QCOMPARE(ta.seqLen, tb.seqLen);
    QCOMPARE(ta.imageSize, tb.imageSize);
    QCOMPARE(ta.gradAccum, tb.gradAccum);
    QCOMPARE_ENUM(ta.checkpointing, tb.checkpointing);
    QCOMPARE(ta.datasetTokens, tb.datasetTokens);
    QCOMPARE(ta.datasetSamples, tb.datasetSamples);
    QCOMPARE(ta.epochs, tb.epochs);
    QCOMPARE(ta.targets.deadlineHours, tb.targets.deadlineHours);
    QCOMPARE(ta.targets.budgetUsd, tb.targets.budgetUsd);
    const auto& ia = a.inference;
    const auto& ib = b.inference;
    QCOMPARE_ENUM(ia.precision, ib.precision);
    QCOMPARE(ia.kvPrecision, ib.kvPrecision);
    QCOMPARE(ia.batch, ib.batch);
    QCOMPARE(ia.promptTokens, ib.promptTokens);
    QCOMPARE(ia.outputTokens, ib.outputTokens);
    QCOMPARE(ia.imageSize, ib.imageSize);
    QCOMPARE(ia.targets.ttftMs, ib.targets.ttftMs);
    QCOMPARE(ia.targets.tpotMs, ib.targets.tpotMs);
    QCOMPARE(ia.targets.requestsPerS, ib.targets.requestsPerS);
    const auto& ha = a.hardware;
    const auto& hb = b.hardware;
    QCOMPARE(ha.gpus, hb.gpus);
    QCOMPARE(ha.count, hb.count);
    QCOMPARE(ha.tp, hb.tp);
    QCOMPARE(ha.pp, hb.pp);
    QCOMPARE(ha.zero, hb.zero);
    QCOMPARE(ha.maxCount, hb.maxCount);
    QCOMPARE(ha.networkGbps, hb.networkGbps);
    QCOMPARE_ENUM(a.pricing.model, b.pricing.model);
    QCOMPARE(a.pricing.utilization, b.pricing.utilization);
    QCOMPARE(a.pricing.electricityUsdPerKwh, b.pricing.electricityUsdPerKwh);
    QCOMPARE(a.pricing.pue, b.pricing.pue);
    QCOMPARE(a.pricing.amortizationYears, b.pricing.amortizationYears);
    QCOMPARE(a.pricing.hostingUsdPerGpuYear, b.pricing.hostingUsdPerGpuYear);

    QCOMPARE(a.model.totalParams(), b.model.totalParams());
    QCOMPARE(a.model.layers, b.model.layers);
    QCOMPARE(a.model.hidden, b.model.hidden);
    QCOMPARE(a.model.approximate, b.model.approximate);
}

/// A scenario with every key set to a non-default value; `model` is spliced in.
inline std::string fullScenario(const char* model)
{
    json doc = json::parse(R"json({
      "format": "gpuplanner-scenario",
      "version": 1,
      "name": "Round trip: every key set (ünïcödé ✓)",
      "workload": {
        "mode": "inference",
        "runtime": "optimized",
        "training": {
          "method": "lora", "lora_rank": 32, "lora_targets": ["q_proj", "v_proj", "gate_proj", "down_proj"],
          "precision": "amp_fp16", "optimizer": "adamw_8bit", "micro_batch": 3, "seq_len": 768,
          "image_size": 256, "grad_accum": 4, "activation_checkpointing": "selective",
          "dataset_tokens": 5.5e9, "epochs": 2.5,
          "targets": {"deadline_hours": 72, "budget_usd": 50000}
        },
        "inference": {
          "precision": "fp8", "kv_precision": "int8", "batch": 12, "prompt_tokens": 300, "output_tokens": 100,
          "image_size": 320, "targets": {"ttft_ms": 500, "tpot_ms": 40, "requests_per_s": 20}
        }
      },
      "hardware": {"gpus": ["nvidia-h100-sxm", "nvidia-l40s"], "count": 8, "tp": 2, "pp": 2, "zero": 1,
                   "max_count": 64, "network_gbps": 200},
      "pricing": {"model": "spot", "utilization": 0.7, "electricity_usd_per_kwh": 0.2, "pue": 1.5,
                  "amortization_years": 4, "hosting_usd_per_gpu_year": 1200}
    })json");
    doc["model"] = json::parse(model);
    return doc.dump(2);
}

Q_DECLARE_METATYPE(gp::ModelSpec::Form)
