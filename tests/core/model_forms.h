#pragma once
// Models for the model tests (tst_model, tst_modelinput): presets looked up by
// id, a relative-tolerance check with its message, and the explicit scenario
// form of the models in tests/common/hfconfigs.h.
#include "core/base/errors.h"
#include "core/model/hfconfig.h"
#include "core/model/model.h"
#include "tests/common/hfconfigs.h"
#include "core/model/presets.h"
#include "core/model/sizeonly.h"

#include <nlohmann/json.hpp>
#include <cctype>
#include <cmath>
#include <set>
#include <string>
#include <QtTest>

using gp::ModelArch;
using gp::ModelFamily;
using gp::test::kBertConfig;
using gp::test::kDeepseekV3Config;
using gp::test::kGpt2Config;
using gp::test::kLlama31_8bConfig;
using gp::test::kMixtralConfig;
using gp::test::kQwen25_72bConfig;

inline const ModelArch& preset(const QString& id)
{
    const ModelArch* m = gp::findPreset(id.toStdString());
    if (!m)
        qFatal("missing preset %s", qPrintable(id));
    return *m;
}

/// QVERIFY with a readable message for "within `tolerance` (relative)".
inline bool near(double actual, double expected, double tolerance)
{
    return std::abs(actual - expected) <= tolerance * std::abs(expected);
}

inline QByteArray nearMessage(double actual, double expected)
{
    return QByteArray("got ") + QByteArray::number(actual, 'g', 10) + ", expected "
         + QByteArray::number(expected, 'g', 10);
}

// The explicit scenario form of the models in tests/common/hfconfigs.h.
inline const char* kLlama31_8bExplicit = R"({"family": "decoder", "layers": 32, "hidden": 4096, "heads": 32,
  "kv_heads": 8, "ffn_hidden": 14336, "ffn": "swiglu", "vocab": 128256, "positional": "rope",
  "max_positions": 131072})";
inline const char* kMixtralExplicit = R"({"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8,
  "ffn_hidden": 14336, "vocab": 32000, "moe": {"experts": 8, "active": 2}})";
inline const char* kGpt2Explicit = R"({"layers": 12, "hidden": 768, "heads": 12, "ffn_hidden": 3072, "ffn": "gelu",
  "vocab": 50257, "tied_embeddings": true, "positional": "learned", "max_positions": 1024})";
inline const char* kBertExplicit = R"({"family": "encoder", "layers": 12, "hidden": 768, "heads": 12,
  "ffn_hidden": 3072, "vocab": 30522, "max_positions": 512})";
inline const char* kLlama32_1bExplicit = R"({"layers": 16, "hidden": 2048, "heads": 32, "kv_heads": 8,
  "head_dim": 64, "ffn_hidden": 8192, "vocab": 128256, "tied_embeddings": true})";
