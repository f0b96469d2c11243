#pragma once
// Shared by the golden tests of the real config.json files (tst_hfmodels.cpp:
// what the reader makes of them; tst_hfmodels2.cpp: the model cards' active
// parameters, the summary lines, and the estimates and plans built on them).
#include "tests/common/estimateterms.h"
#include <QtTest>

#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/hfconfig.h"
#include "core/model/model.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

using gp::ModelArch;

namespace hftest {

inline std::string readFile(const std::string& name)
{
    // Appended in place: `std::string(...) + "..."` here draws GCC 12's -Warray-bounds
    // false positive (inside <string>) when the tests use the precompiled header.
    std::string path = GP_TEST_DATA_DIR;
    path += "/hf-configs/";
    path += name;
    std::ifstream in(path);
    if (!in)
        qFatal("missing test data hf-configs/%s", name.c_str());
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

inline ModelArch load(const std::string& name)
{
    return gp::modelFromHfConfig(nlohmann::json::parse(gp::withoutPythonNumbers(readFile(name))), "model.hf_config");
}

inline bool near(double actual, double expected, double tolerance)
{
    return std::abs(actual - expected) <= tolerance * std::abs(expected);
}

#define QVERIFY_NEAR(actual, expected, tol)                                                                          \
    QVERIFY2(near(actual, expected, tol),                                                                            \
             qPrintable(QString("%1 = %2, expected %3 within %4%").arg(#actual).arg(actual, 0, 'g', 10)               \
                            .arg(expected, 0, 'g', 10).arg(tol * 100)))

inline constexpr double kGB = 1e9;
inline constexpr double kGiB = 1073741824.0;

inline gp::Scenario scenario(const std::string& model, const std::string& workload, const std::string& hardware)
{
    try {
        return gp::parseScenario(R"({"format": "gpuplanner-scenario", "version": 1, "name": "t", "model": )" + model +
                             R"(, "workload": )" + workload + R"(, "hardware": )" + hardware + "}")
            .scenario;
    } catch (const gp::InputError& e) {
        qFatal("scenario refused: %s", e.what());
    }
}

} // namespace hftest

using namespace hftest;
