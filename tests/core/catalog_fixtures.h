#pragma once
// Helpers for the catalog tests (tst_catalog, tst_catalogoverlay): the metatypes
// of the data-driven columns, a built-in GPU by id, a complete custom entry to
// mutate, and expectInputError.
#include "tests/common/builtingpu.h"
#include "tests/common/expecterror.h"
#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/base/precision.h"

#include <string>
#include <QtTest>

Q_DECLARE_METATYPE(gp::DType)
Q_DECLARE_METATYPE(gp::Tier)

/// A complete entry for a GPU that is not in the reference; tests mutate copies of it.
inline const std::string kCustomEntry = R"({
    "id": "acme-x1",
    "vendor": "Acme",
    "name": "Acme X1 64GB",
    "memory_gb": 64,
    "memory_type": "HBM3",
    "memory_bandwidth_gbps": 2000,
    "bf16_tflops": 500,
    "fp16_tflops": 500,
    "fp8_tflops": null,
    "price_hour_usd": {"low": 1.0, "typical": 1.5, "high": 2.0, "spot": null, "providers": "Acme cloud", "seen": "2026-06"}
})";

using gp::test::expectInputError;
