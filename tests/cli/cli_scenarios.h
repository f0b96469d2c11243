#pragma once
// Scenario documents and files for the CLI tests (tst_cli, tst_clibadinput,
// tst_cliestimate): the examples, a base scenario any merge patch can break,
// garbage and oversized inputs, a walk for numbers that are not finite, and the
// temporary folder each test class writes its files into (CliFiles).
#include "cli_runner.h"
#include "core/hardware/catalog.h"
#include "app/cli/cli.h"
#include "core/base/errors.h"
#include "core/estimate/estimate.h"
#include "core/model/model.h"
#include "core/model/presets.h"
#include "core/scenario/scenario.h"

#include <nlohmann/json.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>
#include <QtTest>

using nlohmann::json;

inline std::vector<std::string> exampleFiles()
{
    std::vector<std::string> files;
    for (const auto& entry : std::filesystem::directory_iterator(examplesDir())) {
        const std::string name = entry.path().filename().string();
        if (name.size() > 13 && name.substr(name.size() - 13) == ".gpuplan.json")
            files.push_back(entry.path().string());
    }
    std::sort(files.begin(), files.end());
    return files;
}

inline std::string readText(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

inline void writeBytes(const std::string& path, const QByteArray& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.constData(), static_cast<std::streamsize>(bytes.size()));
}

/// A valid training scenario that also carries an inference section, so one
/// merge patch can break any key of the spec.
inline json baseScenario()
{
    return json::parse(R"({
      "format": "gpuplanner-scenario",
      "version": 1,
      "name": "bad-input base",
      "model": {"preset": "llama-3.2-1b"},
      "workload": {
        "mode": "training",
        "runtime": "eager",
        "training": {"method": "full", "precision": "amp_bf16", "optimizer": "adamw",
                     "micro_batch": 2, "seq_len": 512, "dataset_tokens": 1e8, "epochs": 1},
        "inference": {"precision": "bf16", "batch": 4, "prompt_tokens": 512, "output_tokens": 128}
      },
      "hardware": {"gpus": ["nvidia-h100-sxm"], "count": 1, "tp": 1, "pp": 1, "zero": 0},
      "pricing": {"model": "on_demand", "utilization": 0.8}
    })");
}

/// The base scenario with an RFC 7386 merge patch applied (null deletes a key).
inline QByteArray patched(const char* patch)
{
    json doc = baseScenario();
    doc.merge_patch(json::parse(patch));
    return QByteArray::fromStdString(doc.dump(2));
}

inline QByteArray garbageBytes()
{
    // A PNG signature followed by deterministic noise with NULs and high bytes.
    QByteArray b("\x89PNG\r\n\x1a\n", 8);
    quint32 x = 2463534242u;
    for (int i = 0; i < 4096; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        b.append(static_cast<char>(x & 0xff));
    }
    b[100] = '\0';
    return b;
}

inline QByteArray hugeScenario()
{
    // Syntactically a scenario, but over the 16 MiB limit: a 17 MiB "notes" string.
    QByteArray b = R"({"format": "gpuplanner-scenario", "version": 1, "notes": ")";
    b.append(QByteArray(17 << 20, 'x'));
    b.append(R"(", "model": {"preset": "gpt2-124m"}, "workload": {"mode": "inference"}})");
    return b;
}

/// Walks a JSON document; records the path of every number that is not finite
/// or is negative.
inline void badNumbers(const json& j, const std::string& path, std::vector<std::string>& out)
{
    if (j.is_object()) {
        for (auto it = j.begin(); it != j.end(); ++it)
            badNumbers(it.value(), path + "." + it.key(), out);
    } else if (j.is_array()) {
        for (std::size_t i = 0; i < j.size(); ++i)
            badNumbers(j[i], path + "[" + std::to_string(i) + "]", out);
    } else if (j.is_number()) {
        const double v = j.get<double>();
        if (!std::isfinite(v) || v < 0)
            out.push_back(path + " = " + j.dump());
    }
}

inline bool finiteNonNegative(double v) { return std::isfinite(v) && v >= 0; }

/// The temporary folder of a CLI test class (`class TestX : public QObject, protected
/// CliFiles`): files written into it, the developer's catalog overlay kept out, and
/// the built-in catalog's size, which listings are checked against.
class CliFiles {
protected:
    /// Writes `bytes` to a file of that name in the temporary folder; returns its path.
    std::string writeFile(const std::string& name, const QByteArray& bytes)
    {
        const std::string path = m_tmp.path().toStdString() + "/" + name;
        writeBytes(path, bytes);
        return path;
    }

    /// For initTestCase: the folder made, the overlay isolated, the catalog counted.
    void setUpFiles()
    {
        QVERIFY(m_tmp.isValid());
        // Isolate from the developer's own catalog overlay.
        qputenv("GPUPLANNER_CATALOG_OVERLAY", (m_tmp.path() + "/no-overlay.json").toUtf8());
        m_catalogSize = gp::Catalog::builtin().gpus().size();
        QCOMPARE(m_catalogSize, std::size_t(48));
    }

    QTemporaryDir m_tmp;
    std::size_t m_catalogSize = 0;
};
