// Hostile input and failing output for gpuplanner-cli (issue #9): output that
// cannot be written is exit 1, bad measured records are exit 2 naming the
// record and key, FIFOs and huge ids return at once, control characters never
// reach the terminal raw, NUL bytes, duplicate keys and future versions get
// their exact messages, and replica counts never overflow.
#include <QtTest>

#include "core/hardware/catalog.h"
#include "app/cli/cli.h"
#include "core/base/errors.h"
#include "core/base/fileread.h"
#include "core/plan/planner.h"
#include "core/scenario/scenario.h"

#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <string>
#include <vector>

#include <sys/stat.h>
#include <unistd.h>

namespace {

struct Result {
    int code = -1;
    std::string out;
    std::string err;
};

Result runCli(const std::vector<std::string>& args)
{
    std::ostringstream out;
    std::ostringstream err;
    Result r;
    r.code = gp::cli::run(args, out, err);
    r.out = out.str();
    r.err = err.str();
    return r;
}

/// A stream buffer that accepts `room` bytes, then fails every write (a disk
/// that fills up mid-file), without touching errno.
class FillingBuf : public std::streambuf {
public:
    explicit FillingBuf(std::size_t room)
        : m_room(room)
    {
    }
    std::string written;

protected:
    int_type overflow(int_type c) override
    {
        if (traits_type::eq_int_type(c, traits_type::eof()))
            return traits_type::not_eof(c);
        if (written.size() >= m_room)
            return traits_type::eof();
        written += traits_type::to_char_type(c);
        return c;
    }
    std::streamsize xsputn(const char* s, std::streamsize n) override
    {
        const auto take = std::min<std::size_t>(static_cast<std::size_t>(n), m_room - written.size());
        written.append(s, take);
        return static_cast<std::streamsize>(take);
    }

private:
    std::size_t m_room;
};

void writeBytes(const std::string& path, const std::string& bytes)
{
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

std::string readBytes(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

// Appended in place: std::string(GP_EXAMPLES_DIR) + "/" + name draws GCC 12's -Warray-bounds
// false positive inside <string> when the tests use the precompiled header.
std::string example(const char* name)
{
    std::string path = GP_EXAMPLES_DIR;
    path += '/';
    path += name;
    return path;
}

/// A published training-throughput record (torchtitan's shape) with one value patched.
std::string publishedRecord(const std::string& otherJson, int count, int microBatch, int seqLen)
{
    return R"({"id": "T-1", "category": "training_throughput", "model": "Llama 3.1 8B",
  "model_arch": {"layers": 32, "hidden": 4096, "heads": 32, "kv_heads": 8, "ffn_hidden": 14336, "vocab": 128256,
                 "seq_len": )" + std::to_string(seqLen) + R"(},
  "hardware": {"gpu": "H100 SXM", "count": )" + std::to_string(count) + R"(},
  "software": {"precision": "bf16", "parallelism": "FSDP", "micro_batch_per_gpu": )" + std::to_string(microBatch) +
           R"(, "other": )" + otherJson + R"(},
  "metric": "throughput_tokens_per_s_per_gpu", "value": 5762})";
}

} // namespace

class TestCliInput : public QObject {
    Q_OBJECT

    QTemporaryDir m_dir;
    std::string path(const char* name) const { return m_dir.filePath(QString::fromUtf8(name)).toStdString(); }

    /// A scenario file: the gpt2 example with `from` replaced by `to`.
    std::string patchedExample(const char* file, const std::string& from, const std::string& to, const char* out)
    {
        std::string text = readBytes(example(file));
        const auto at = text.find(from);
        if (at == std::string::npos)
            qFatal("patchedExample: \"%s\" not in %s", from.c_str(), file);
        text.replace(at, from.size(), to);
        writeBytes(path(out), text);
        return path(out);
    }

private slots:
    void initTestCase()
    {
        QVERIFY(m_dir.isValid());
        qputenv("GPUPLANNER_CATALOG_OVERLAY", m_dir.filePath(QStringLiteral("no-overlay.json")).toUtf8());
    }

    void outputThatCannotBeWrittenIsExit1_data()
    {
        QTest::addColumn<QStringList>("args");
        const QString train = QString::fromStdString(example("gpt2-124m-pretrain.gpuplan.json"));
        QTest::addRow("estimate") << QStringList{"estimate", train};
        QTest::addRow("estimate table") << QStringList{"estimate", train, "--format", "table"};
        QTest::addRow("plan") << QStringList{"plan", train, "--top", "2"};
        QTest::addRow("rent-vs-buy") << QStringList{"rent-vs-buy", train, "--gpu", "nvidia-h100-sxm"};
        QTest::addRow("rules") << QStringList{"rules"};
        QTest::addRow("gpus") << QStringList{"gpus", "--format", "json"};
        QTest::addRow("presets") << QStringList{"presets"};
        QTest::addRow("validate") << QStringList{"validate", QStringLiteral(GP_TEST_DATA_DIR "/published")};
        QTest::addRow("--help") << QStringList{"--help"};
        QTest::addRow("--version") << QStringList{"--version"};
    }

    void outputThatCannotBeWrittenIsExit1()
    {
        QFETCH(QStringList, args);
        std::vector<std::string> a;
        for (const auto& s : args)
            a.push_back(s.toStdString());
        const Result good = runCli(a);
        QCOMPARE(good.code, 0);
        QVERIFY(good.out.size() > 20);
        const std::string size = std::to_string(good.out.size());

        // /dev/full: every flush fails with ENOSPC.
        {
            std::ofstream full("/dev/full", std::ios::binary);
            QVERIFY(full.is_open());
            std::ostringstream err;
            QCOMPARE(gp::cli::run(a, full, err), 1);
            QVERIFY2(err.str().find("gpuplanner-cli: cannot write the output (" + size +
                                    " bytes): No space left on device\n") != std::string::npos,
                     err.str().c_str());
        }
        // A stream that takes 10 bytes, then fails: no success for a truncated write.
        {
            FillingBuf buf(10);
            std::ostream out(&buf);
            std::ostringstream err;
            QCOMPARE(gp::cli::run(a, out, err), 1);
            QCOMPARE(buf.written, good.out.substr(0, 10));
            QVERIFY2(err.str().find("gpuplanner-cli: cannot write the output (" + size + " bytes)") !=
                         std::string::npos,
                     err.str().c_str());
        }
    }

    void badMeasuredRecordsAreExit2_data()
    {
        QTest::addColumn<QByteArray>("records");
        QTest::addColumn<QString>("expected");
        const std::string okOther = R"({"tp": 1, "pp": 1})";
        QTest::addRow("pp 0") << QByteArray::fromStdString("[" + publishedRecord(R"({"tp": 1, "pp": 0})", 8, 2, 8192) + "]")
                              << "bad.json: [0] (\"T-1\").software.other.pp: must be a positive integer between 1 "
                                 "and 1024, got 0\n";
        QTest::addRow("batch 0") << QByteArray::fromStdString("[" + publishedRecord(okOther, 8, 0, 8192) + "]")
                                 << "bad.json: [0] (\"T-1\").software.micro_batch_per_gpu: must be a positive "
                                    "integer between 1 and 10000000, got 0\n";
        QTest::addRow("negative count") << QByteArray::fromStdString("[" + publishedRecord(okOther, -8, 2, 8192) + "]")
                                        << "bad.json: [0] (\"T-1\").hardware.count: must be a positive integer "
                                           "between 1 and 1000000, got -8\n";
        QTest::addRow("negative seq_len") << QByteArray::fromStdString("[" + publishedRecord(okOther, 8, 2, -8192) + "]")
                                          << "bad.json: [0] (\"T-1\").model_arch.seq_len: must be a positive "
                                             "integer between 1 and 10000000, got -8192\n";
        QTest::addRow("negative output_len (second record)")
            << QByteArray::fromStdString("[" + publishedRecord(okOther, 8, 2, 8192) + ", " +
                                         publishedRecord(R"({"input_len": 128, "output_len": -1})", 8, 2, 8192) + "]")
            << "bad.json: [1] (\"T-1\").software.other.output_len: must be a positive integer between 1 and "
               "10000000, got -1\n";
        // measure.py's shape, wrapped in {"records": [...]}
        QTest::addRow("measured batch -4")
            << QByteArray(R"({"records": [{"name": "device", "gpu_id": "nvidia-h100-sxm"},
               {"kind": "infer_vision", "name": "infer_resnet50", "arch": "resnet50", "batch": -4,
                "images_per_s": 100, "peak_reserved_mib": 900}]})")
            << "bad.json: records[1] (\"infer_resnet50\").batch: must be a positive integer between 1 and 10000000, "
               "got -4\n";
        QTest::addRow("measured context_len 0")
            << QByteArray(R"([{"kind": "infer_llm", "name": "i", "gpu_id": "nvidia-h100-sxm", "context_len": 0,
                "config": {"hidden_size": 64, "num_hidden_layers": 2, "num_attention_heads": 4,
                           "intermediate_size": 128, "vocab_size": 1000}, "decode_step_ms": 1}])")
            << "bad.json: [0] (\"i\").context_len: must be a positive integer between 1 and 10000000, got 0\n";
    }

    void badMeasuredRecordsAreExit2()
    {
        QFETCH(QByteArray, records);
        QFETCH(QString, expected);
        const std::string dir = path(QTest::currentDataTag());
        std::filesystem::create_directories(dir);
        writeBytes(dir + "/bad.json", records.toStdString());
        const Result r = runCli({"validate", dir, "--check"});
        // Issue 20: each bad record is named and skipped and the rest is validated;
        // with nothing usable left the run is exit 2 and says so.
        if (QByteArray(QTest::currentDataTag()).contains("second record")) {
            QCOMPARE(r.code, 1); // the good first record is scored (over its bound: --check)
            QCOMPARE(QString::fromStdString(r.err), expected);
            QVERIFY(r.out.find("T-1 Llama 3.1 8B") != std::string::npos);
            return;
        }
        QCOMPARE(r.code, 2);
        QCOMPARE(QString::fromStdString(r.err), expected + QString::fromStdString(dir) + ": no measured records found\n");
        QCOMPARE(r.out, std::string());
    }

    void goodRecordStillValidates()
    {
        const std::string dir = path("good-records");
        std::filesystem::create_directories(dir);
        writeBytes(dir + "/ok.json", "[" + publishedRecord(R"({"tp": 1, "pp": 1})", 8, 2, 8192) + "]");
        const Result r = runCli({"validate", dir, "--format", "json"});
        QCOMPARE(r.code, 0);
        QVERIFY2(r.out.find("\"record\": \"T-1 Llama 3.1 8B\"") != std::string::npos, r.out.c_str());
    }

    void fifoIsRefusedWithoutBlocking()
    {
        const std::string fifo = path("scenario.fifo");
        QCOMPARE(::mkfifo(fifo.c_str(), 0600), 0);
        // No writer ever opens it: a blocking open would hang the test.
        const Result r = runCli({"estimate", fifo});
        QCOMPARE(r.code, 2);
        QCOMPARE(QString::fromStdString(r.err),
                 QString::fromStdString(fifo + ": not a regular file (a FIFO)\n"));
        QVERIFY_THROWS_EXCEPTION(gp::InputError, gp::readTextFileBounded(fifo));
    }

    void readErrorsSayTheRealReason()
    {
        auto reason = [](const std::string& p) {
            try {
                (void)gp::readTextFileBounded(p);
            } catch (const gp::InputError& e) {
                return QString::fromStdString(e.problems().at(0).message);
            }
            return QStringLiteral("(read)");
        };
        const std::string loop = path("loop");
        QCOMPARE(::symlink(loop.c_str(), loop.c_str()), 0);
        QCOMPARE(reason(loop), QStringLiteral("too many levels of symbolic links (a symlink loop?)"));
        QCOMPARE(reason(path("absent.json")), QStringLiteral("no such file"));
        QCOMPARE(reason(std::string(5000, 'a')), QStringLiteral("file name too long"));
        QCOMPARE(reason(m_dir.path().toStdString()), QStringLiteral("is a directory, expected a file"));
        QCOMPARE(reason("/dev/null"), QStringLiteral("not a regular file (a character device)"));
        writeBytes(path("big.json"), std::string(2000, ' '));
        QCOMPARE(QString::fromStdString([&] {
                     try {
                         (void)gp::readTextFileBounded(path("big.json"), 1000);
                     } catch (const gp::InputError& e) {
                         return e.problems().at(0).message;
                     }
                     return std::string("(read)");
                 }()),
                 QStringLiteral("larger than 1000 bytes; refused"));
        QCOMPARE(gp::readTextFileBounded(path("big.json"), 2000), std::string(2000, ' '));
    }

    void nulByteIsRefused()
    {
        std::string text = readBytes(example("gpt2-124m-pretrain.gpuplan.json"));
        const std::size_t at = text.size();
        text += std::string("\0{\"x\": 1}", 9);
        writeBytes(path("nul.gpuplan.json"), text);
        const Result r = runCli({"estimate", path("nul.gpuplan.json")});
        QCOMPARE(r.code, 2);
        const std::string f = path("nul.gpuplan.json");
        QCOMPARE(r.err, f + ": contains a NUL byte at offset " + std::to_string(at) + "; not a text file\n");
        // The same from text (the app's path).
        QVERIFY_THROWS_EXCEPTION(gp::InputError, gp::parseScenario(text));
    }

    void duplicateKeysWarn()
    {
        const std::string f = patchedExample("gpt2-124m-pretrain.gpuplan.json", "\"count\": 1}",
                                             "\"count\": 4, \"count\": 1}", "dup.gpuplan.json");
        const Result r = runCli({"estimate", f});
        QCOMPARE(r.code, 0);
        QCOMPARE(r.err, f + ": warning: hardware.count: duplicate key; only its last value is used\n");
        // Last wins, as JSON parsers do; the warning says so.
        QVERIFY(r.out.find("\"count\": 1") != std::string::npos);
    }

    void futureVersionsAreNewer_data()
    {
        QTest::addColumn<QString>("version");
        QTest::addRow("2") << "2";
        QTest::addRow("2^63") << "9223372036854775808";
        QTest::addRow("2.0") << "2.0";
        QTest::addRow("1e300") << "1e300";
    }

    void futureVersionsAreNewer()
    {
        QFETCH(QString, version);
        const std::string f = patchedExample("gpt2-124m-pretrain.gpuplan.json", "\"version\": 1",
                                             "\"version\": " + version.toStdString(), "v.gpuplan.json");
        const Result r = runCli({"estimate", f});
        QCOMPARE(r.code, 2);
        const std::string shown = version == "1e300" ? "1e+300" : version.toStdString();
        QCOMPARE(r.err, f + ": version: version " + shown +
                            " is newer than this program (which reads version 1); update GPU Planner\n");
    }

    void controlCharactersAreEscaped()
    {
        // An id with an escape sequence and a forged second error line.
        const std::string f = patchedExample("gpt2-124m-pretrain.gpuplan.json", "\"gpus\": \"all\"",
                                             "\"gpus\": [\"x\\u001b[2J\\nerror: fake\"]", "ctl.gpuplan.json");
        const Result r = runCli({"estimate", f});
        QCOMPARE(r.code, 2);
        const std::string hint = gp::Catalog::builtin().closestId("x\x1b[2J\nerror: fake");
        QVERIFY(!hint.empty());
        QCOMPARE(r.err, f + ": hardware.gpus[0]: unknown GPU id \"x\\x1b[2J\\nerror: fake\" (did you mean \"" + hint +
                            "\"?)\n");
        // A usage error quoting an argument, and the printable() rules themselves.
        const Result u = runCli({"estimate", "--bogus\r\x07"});
        QCOMPARE(u.err, std::string("gpuplanner-cli: unknown option --bogus\\r\\x07\n"));
        QCOMPARE(gp::printable("a\tb\x7f\xc2\x9b" "c\xc3\xa9\n"), std::string("a\\tb\\x7f\\u009bc\xc3\xa9\\n"));
        QCOMPARE(gp::printable("l1\nl2\x1b", true), std::string("l1\nl2\\x1b"));
    }

    void hugeUnknownIdIsQuick()
    {
        const std::string id(15u << 20, 'z');
        const std::string f = patchedExample("gpt2-124m-pretrain.gpuplan.json", "\"gpus\": \"all\"",
                                             "\"gpus\": [\"" + id + "\"]", "huge-id.gpuplan.json");
        QElapsedTimer t;
        t.start();
        const Result r = runCli({"estimate", f});
        qInfo("15 MiB unknown GPU id: %lld ms", static_cast<long long>(t.elapsed()));
        QCOMPARE(r.code, 2);
        QCOMPARE(r.err, f + ": hardware.gpus[0]: unknown GPU id \"" + std::string(64, 'z') + "...\" (15728640 bytes)\n");
        // A short typo still gets its suggestion.
        const gp::Catalog& cat = gp::Catalog::builtin();
        QCOMPARE(cat.unknownIdMessage("nvidia-h100-sx"),
                 std::string("unknown GPU id \"nvidia-h100-sx\" (did you mean \"nvidia-h100-sxm\"?)"));
    }

    void replicaCountsNeverOverflow()
    {
        gp::Scenario s = gp::parseScenario(readBytes(example("llama31-70b-serve-2xh100-tp.gpuplan.json"))).scenario;
        s.hardware.gpus = {"nvidia-h100-sxm", "amd-mi325x"};
        s.modelSpec.form = gp::ModelSpec::Form::Preset;
        s.modelSpec.presetId = "llama-3.1-8b";
        s.model = gp::resolveModel(s.modelSpec);
        // Every format and the point estimates, as the planner ranked before
        // issue #16 (hardware.precisions, hardware.confidence): the capacity
        // threshold below is the one this test was written for.
        s.hardware.precisions = {"bf16", "fp8", "int8", "int4"};
        gp::PlanRequest request{3};
        request.confidence = 0.5;
        const auto& cat = gp::Catalog::builtin();
        int served = 0;
        for (double rps = 1e-3; rps <= 1e12; rps *= 10) {
            s.inference.targets.requestsPerS = rps;
            const gp::PlanResult r = gp::plan(s, cat, request);
            for (const auto& o : r.options) {
                QVERIFY2(o.replicas >= 1, qPrintable(QString::number(rps)));
                QVERIFY2(static_cast<long long>(o.count) * o.replicas <= s.hardware.maxCount,
                         qPrintable(QString::number(rps)));
                QVERIFY(o.usdPerHour > 0);
            }
            if (r.options.empty()) {
                // 8B on H100 serves some 10^2 to 10^3 requests/s per replica: beyond
                // max_count x that, nothing can serve the load, and the plan says so.
                QVERIFY2(rps >= 1e5, qPrintable(QString::number(rps)));
                QVERIFY(std::find(r.notes.begin(), r.notes.end(),
                                  "No option can serve " + QString::number(rps, 'g', 6).toStdString() +
                                      " requests/s within hardware.max_count (1024) GPUs; raise max_count or lower the "
                                      "load.") != r.notes.end());
            } else {
                ++served;
            }
        }
        QVERIFY(served >= 5); // 1e-3 .. 10 at least
    }
};

QTEST_MAIN(TestCliInput)
#include "tst_cliinput.moc"
