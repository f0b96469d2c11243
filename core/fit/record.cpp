// Reads serving and training logs into measured records (kind "scenario_run").
// The log formats, and the source lines that print them, are cited in
// tests/data/logs/README.md.
#include "core/fit/record.h"

#include "core/hardware/catalog.h"
#include "core/base/errors.h"
#include "core/engines/launch.h"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <regex>
#include <sstream>

namespace gp {

using nlohmann::json;
using nlohmann::ordered_json;

namespace {

bool contains(const std::string& hay, const char* needle) { return hay.find(needle) != std::string::npos; }

/// Longer lines are skipped: no log line of these formats comes near it, and
/// libstdc++'s std::regex recurses per character.
constexpr std::size_t kMaxLineChars = 16384;

/// "1,234,560" -> 1234560
double number(std::string s)
{
    s.erase(std::remove(s.begin(), s.end(), ','), s.end());
    try {
        return std::stod(s);
    } catch (...) {
        return std::nan("");
    }
}

std::string stem(const std::string& path) { return std::filesystem::path(path).stem().string(); }

/// One `key=value` of vLLM's engine-config line (VllmConfig.__str__), quotes stripped.
std::optional<std::string> configValue(const std::string& line, const std::string& key)
{
    const std::regex re("(?:^|[ ,(])" + key + "=('([^']*)'|[^,\\s]*)");
    std::smatch m;
    if (!std::regex_search(line, m, re))
        return std::nullopt;
    return m[2].matched ? m[2].str() : m[1].str();
}

struct Draft {
    std::string kind;           // vllm-server, vllm-bench, hf-trainer, torchtune
    std::string path;
    ordered_json measured = ordered_json::object();
    std::vector<std::string> read;     // what the log said
    std::vector<std::string> unread;   // what it did not
    // Scenario fields the log gives (unset: from the base scenario)
    std::string model;          // Hugging Face id / path as the log names it
    std::optional<int> tp, pp, count, batch, seqLen, promptTokens, outputTokens, microBatch, gradAccum;
    std::optional<InferPrecision> precision, kvPrecision;
    std::optional<TrainPrecision> trainPrecision;
    std::optional<double> requestRate;
};

std::optional<InferPrecision> inferPrecisionFromDtype(const std::string& dtype, const std::string& quant)
{
    if (quant == "fp8" || contains(quant, "fp8"))
        return InferPrecision::FP8;
    if (quant == "awq" || quant == "gptq" || contains(quant, "awq") || contains(quant, "gptq"))
        return InferPrecision::INT4;
    if (contains(quant, "fp4"))
        return InferPrecision::FP4;
    if (contains(dtype, "bfloat16"))
        return InferPrecision::BF16;
    if (contains(dtype, "float16") || dtype == "torch.half")
        return InferPrecision::FP16;
    if (contains(dtype, "float32"))
        return InferPrecision::FP32;
    return std::nullopt;
}

void readVllmServer(const std::string& text, Draft& d)
{
    std::istringstream in(text);
    std::string line;
    std::smatch m;
    static const std::regex kvTokens(R"(GPU KV cache size: ([0-9,]+) tokens)");
    static const std::regex concurrency(R"(Maximum concurrency for ([0-9,]+) tokens per request: ([0-9.]+)x)");
    static const std::regex available(R"(Available KV cache memory: ([0-9.]+) GiB)");
    static const std::regex blocks(R"(# (?:GPU|cuda|CUDA) blocks: ([0-9]+))");
    static const std::regex version(R"(Initializing an? (?:V1 )?LLM engine \(v([^)]{1,64})\) with config: )");
    static const std::regex utilization(R"('gpu_memory_utilization': ([0-9.]+))");
    static const std::regex maxSeqs(R"('max_num_seqs': ([0-9]+))");
    std::optional<double> blockCount;
    while (std::getline(in, line)) {
        if (line.size() > kMaxLineChars)
            continue; // libstdc++'s regex recurses per character: no unbounded lines
        if (std::regex_search(line, m, version)) {
            d.measured["vllm_version"] = m[1].str();
            const std::string cfg = line.substr(std::size_t(m.position(0) + m.length(0)));
            if (auto v = configValue(cfg, "model")) {
                d.model = *v;
                d.read.push_back("model " + *v);
            }
            if (auto v = configValue(cfg, "tensor_parallel_size")) {
                d.tp = int(number(*v));
                d.read.push_back("tensor_parallel_size " + *v);
            }
            if (auto v = configValue(cfg, "pipeline_parallel_size")) {
                d.pp = int(number(*v));
                d.read.push_back("pipeline_parallel_size " + *v);
            }
            const std::string dtype = configValue(cfg, "dtype").value_or("");
            const std::string quant = configValue(cfg, "quantization").value_or("None");
            if (auto p = inferPrecisionFromDtype(dtype, quant == "None" ? "" : quant)) {
                d.precision = p;
                d.read.push_back("dtype " + dtype + ", quantization " + quant);
            }
            if (auto v = configValue(cfg, "kv_cache_dtype")) {
                if (contains(*v, "fp8"))
                    d.kvPrecision = InferPrecision::FP8;
                d.read.push_back("kv_cache_dtype " + *v);
            }
            if (auto v = configValue(cfg, "max_seq_len")) {
                d.measured["max_model_len"] = number(*v);
                d.read.push_back("max_seq_len " + *v);
            }
        } else if (std::regex_search(line, m, kvTokens)) {
            d.measured["kv_cache_tokens"] = number(m[1].str());
            d.read.push_back("GPU KV cache size " + m[1].str() + " tokens");
        } else if (std::regex_search(line, m, concurrency)) {
            d.measured["max_model_len"] = number(m[1].str());
            d.measured["max_concurrency"] = number(m[2].str());
            d.read.push_back("maximum concurrency " + m[2].str() + "x for " + m[1].str() + " tokens");
        } else if (std::regex_search(line, m, available)) {
            d.measured["available_kv_cache_gib"] = number(m[1].str());
            d.read.push_back("available KV cache memory " + m[1].str() + " GiB");
        } else if (std::regex_search(line, m, blocks)) {
            blockCount = number(m[1].str());
            d.read.push_back("# GPU blocks " + m[1].str());
        }
        if (std::regex_search(line, m, utilization)) {
            d.measured["gpu_memory_utilization"] = number(m[1].str());
            d.read.push_back("gpu_memory_utilization " + m[1].str());
        }
        if (std::regex_search(line, m, maxSeqs)) {
            d.batch = int(number(m[1].str()));
            d.read.push_back("max_num_seqs " + m[1].str());
        }
    }
    if (!d.measured.contains("kv_cache_tokens") && blockCount)
        d.measured["kv_cache_tokens"] = *blockCount * 16; // V0: blocks of block_size 16 (CacheConfig default on CUDA)
    if (!d.measured.contains("kv_cache_tokens"))
        d.unread.push_back("no \"GPU KV cache size: N tokens\" (or \"# GPU blocks: N\") line");
    if (!d.measured.contains("max_concurrency"))
        d.unread.push_back("no \"Maximum concurrency for N tokens per request\" line");
    if (!d.measured.contains("available_kv_cache_gib"))
        d.unread.push_back("no \"Available KV cache memory\" line (the KV memory is taken as tokens x bytes per token)");
    if (!d.measured.contains("gpu_memory_utilization"))
        d.unread.push_back("gpu_memory_utilization not logged (no \"non-default args\" entry): vLLM's default 0.9 assumed");
    if (d.model.empty())
        d.unread.push_back("no engine-config line (\"Initializing a V1 LLM engine (v...) with config: model=...\")");
}

void readVllmBench(const json& j, Draft& d)
{
    auto take = [&](const char* key, const char* as) {
        if (j.contains(key) && j[key].is_number()) {
            d.measured[as] = j[key].get<double>();
            d.read.push_back(std::string(key) + " " + j[key].dump());
        } else {
            d.unread.push_back(std::string(key) + " missing");
        }
    };
    take("mean_ttft_ms", "ttft_ms");
    take("mean_tpot_ms", "tpot_ms");
    take("output_throughput", "output_tokens_per_s");
    take("request_throughput", "requests_per_s");
    if (j.contains("model_id") && j["model_id"].is_string()) {
        d.model = j["model_id"].get<std::string>();
        d.read.push_back("model_id " + d.model);
    }
    if (j.contains("request_rate")) {
        if (j["request_rate"].is_number()) {
            d.requestRate = j["request_rate"].get<double>();
            d.read.push_back("request_rate " + j["request_rate"].dump());
        } else {
            d.read.push_back("request_rate inf (all requests at once)");
        }
    }
    if (j.contains("max_concurrency") && j["max_concurrency"].is_number_integer()) {
        d.batch = j["max_concurrency"].get<int>();
        d.read.push_back("max_concurrency " + std::to_string(*d.batch));
    }
    const double completed = j.value("completed", 0.0);
    if (completed > 0 && j.contains("total_input_tokens") && j.contains("total_output_tokens")) {
        d.promptTokens = int(std::lround(j["total_input_tokens"].get<double>() / completed));
        d.outputTokens = int(std::lround(j["total_output_tokens"].get<double>() / completed));
        d.read.push_back("mean prompt " + std::to_string(*d.promptTokens) + " and output " + std::to_string(*d.outputTokens) +
                         " tokens per request");
    }
    if (!d.batch && !d.requestRate)
        d.unread.push_back("neither max_concurrency nor a finite request_rate: the concurrency comes from the scenario");
}

void readHfTrainer(const std::string& text, Draft& d)
{
    std::smatch m;
    static const std::regex perDevice(R"(Instantaneous batch size per device = ([0-9,]+))");
    static const std::regex accum(R"(Gradient Accumulation steps = ([0-9,]+))");
    static const std::regex samples(R"('train_samples_per_second': ([0-9.eE+-]+))");
    static const std::regex runtime(R"('train_runtime': ([0-9.eE+-]+))");
    static const std::regex steps(R"('train_steps_per_second': ([0-9.eE+-]+))");
    // Only the lines that can hold them, each bounded (libstdc++'s regex recurses per character).
    std::string lines;
    {
        std::istringstream in(text);
        std::string line;
        while (std::getline(in, line))
            if (line.size() <= kMaxLineChars && (contains(line, " = ") || contains(line, "'train_")))
                lines += line + "\n";
    }
    if (std::regex_search(lines, m, perDevice)) {
        d.microBatch = int(number(m[1].str()));
        d.read.push_back("per-device batch " + m[1].str());
    } else {
        d.unread.push_back("no \"Instantaneous batch size per device\" line");
    }
    if (std::regex_search(lines, m, accum)) {
        d.gradAccum = int(number(m[1].str()));
        d.read.push_back("gradient accumulation " + m[1].str());
    }
    if (std::regex_search(lines, m, samples)) {
        d.measured["train_samples_per_s"] = number(m[1].str());
        d.read.push_back("train_samples_per_second " + m[1].str());
    } else {
        d.unread.push_back("no train_samples_per_second (the run's final metrics)");
    }
    if (std::regex_search(lines, m, runtime)) {
        d.measured["train_runtime_s"] = number(m[1].str());
        d.read.push_back("train_runtime " + m[1].str() + " s");
    }
    if (std::regex_search(lines, m, steps))
        d.measured["train_steps_per_s"] = number(m[1].str());
    d.unread.push_back("peak memory: the Trainer does not log it");
    d.unread.push_back("model, GPU and sequence length: the Trainer does not log them");
}

void readTorchtune(const std::string& text, Draft& d)
{
    // DiskLogger.log_dict: "Step {step} | " then "{name}:{data} " per metric, one
    // line per logged step (txt), or {"step": N, name: value, ...} per line (jsonl).
    std::istringstream in(text);
    std::string line;
    static const std::regex head(R"(^Step ([0-9]+) \| (.*)$)");
    static const std::regex pair(R"(([A-Za-z_]+):([0-9.eE+-]+))");
    std::smatch m;
    std::map<std::string, std::vector<std::pair<int, double>>> series;
    while (std::getline(in, line)) {
        if (line.size() > kMaxLineChars)
            continue;
        if (std::regex_search(line, m, head)) {
            const int step = std::stoi(m[1].str());
            const std::string rest = m[2].str();
            for (auto it = std::sregex_iterator(rest.begin(), rest.end(), pair); it != std::sregex_iterator(); ++it)
                series[(*it)[1].str()].push_back({step, number((*it)[2].str())});
        } else if (!line.empty() && line[0] == '{') {
            try {
                const json j = json::parse(line);
                if (j.contains("step") && j["step"].is_number_integer())
                    for (const auto& [k, v] : j.items())
                        if (k != "step" && v.is_number())
                            series[k].push_back({j["step"].get<int>(), v.get<double>()});
            } catch (const json::exception&) {
            }
        }
    }
    auto steady = [&](const std::string& name) -> std::optional<double> {
        const auto it = series.find(name);
        if (it == series.end() || it->second.empty())
            return std::nullopt;
        // The first step includes compilation and allocator warm-up: skip it when there are more.
        const auto& v = it->second;
        double sum = 0;
        int n = 0;
        for (std::size_t i = v.size() > 1 ? 1 : 0; i < v.size(); ++i, ++n)
            sum += v[i].second;
        return sum / n;
    };
    auto peak = [&](const std::string& name) -> std::optional<double> {
        const auto it = series.find(name);
        if (it == series.end() || it->second.empty())
            return std::nullopt;
        double mx = 0;
        for (const auto& [step, v] : it->second)
            mx = std::max(mx, v);
        return mx;
    };
    if (auto v = steady("tokens_per_second_per_gpu")) {
        d.measured["tokens_per_second_per_gpu"] = *v;
        d.read.push_back("tokens_per_second_per_gpu (mean after the first step) " + std::to_string(*v));
    } else {
        d.unread.push_back("no tokens_per_second_per_gpu lines");
    }
    if (auto v = peak("peak_memory_reserved")) {
        d.measured["peak_memory_reserved_gib"] = *v;
        d.read.push_back("peak_memory_reserved " + std::to_string(*v) + " GiB");
    } else {
        d.unread.push_back("no peak_memory_reserved lines (log_peak_memory_stats: False?)");
    }
    if (auto v = peak("peak_memory_alloc"))
        d.measured["peak_memory_alloc_gib"] = *v;
    d.unread.push_back("model, GPU, batch and sequence length: the metric log does not hold them (the recipe config does)");
}

/// The log's value when it gives one; else the scenario's stays and its key is listed
/// as taken from the scenario.
template <class T>
void takeOr(const std::optional<T>& fromLog, T& field, const char* key, std::vector<std::string>& fromScenario)
{
    if (fromLog)
        field = *fromLog;
    else
        fromScenario.push_back(key);
}

/// The scenario of a draft: the log's fields over the base's.
Scenario buildScenario(const Draft& d, const std::optional<Scenario>& base, const Catalog& catalog,
                       std::vector<std::string>& fromScenario, std::vector<Diagnostic>& missing)
{
    const std::string where = d.path;
    Scenario s = base ? *base : Scenario{};
    const bool serving = d.kind == "vllm-server" || d.kind == "vllm-bench";
    s.name = "recorded from " + std::filesystem::path(d.path).filename().string();
    // Model
    const std::string preset = d.model.empty() ? std::string() : presetForRepoId(d.model);
    if (!preset.empty()) {
        s.modelSpec = ModelSpec{};
        s.modelSpec.form = ModelSpec::Form::Preset;
        s.modelSpec.presetId = preset;
        s.model = resolveModel(s.modelSpec);
    } else if (base) {
        fromScenario.push_back("model");
    } else {
        missing.push_back({where, d.model.empty() ? "model: the log does not name it; give --scenario FILE with the model"
                                                  : "model: \"" + d.model + "\" is not a preset; give --scenario FILE with "
                                                                            "the model (preset, explicit or hf_config)"});
    }
    // GPU
    if (!base || s.hardware.gpus.size() != 1)
        missing.push_back({where, "hardware.gpus: the log does not name the GPU; give --scenario FILE whose hardware.gpus "
                                  "names one GPU"});
    else {
        fromScenario.push_back("hardware.gpus");
        if (!catalog.find(s.hardware.gpus.front()))
            missing.push_back({where, "hardware.gpus: unknown GPU \"" + s.hardware.gpus.front() + "\""});
    }
    if (serving) {
        s.mode = Mode::Inference;
        s.runtime = Runtime::Serving;
        takeOr(d.tp, s.hardware.tp, "hardware.tp", fromScenario);
        if (d.pp)
            s.hardware.pp = *d.pp;
        s.hardware.count = s.hardware.tp * s.hardware.pp;
        s.hardware.zero = 0;
        takeOr(d.precision, s.inference.precision, "inference.precision", fromScenario);
        if (d.kvPrecision)
            s.inference.kvPrecision = d.kvPrecision;
        takeOr(d.batch, s.inference.batch, "inference.batch", fromScenario);
        if (d.promptTokens && d.outputTokens) {
            s.inference.promptTokens = *d.promptTokens;
            s.inference.outputTokens = *d.outputTokens;
        } else if (d.measured.contains("max_model_len")) {
            // The server's KV figures are for max_model_len tokens per request.
            const int len = int(d.measured["max_model_len"].get<double>());
            s.inference.outputTokens = std::min(s.inference.outputTokens, std::max(1, len / 2));
            s.inference.promptTokens = std::max(1, len - s.inference.outputTokens);
        } else {
            fromScenario.push_back("inference.prompt_tokens/output_tokens");
        }
        if (d.requestRate)
            s.inference.targets.requestsPerS = d.requestRate;
        if (!base && !d.batch && !d.requestRate)
            missing.push_back({where, "inference.batch: the log does not give the concurrency; give --scenario FILE"});
    } else {
        s.mode = Mode::Training;
        takeOr(d.microBatch, s.training.microBatch, "training.micro_batch", fromScenario);
        takeOr(d.gradAccum, s.training.gradAccum, "training.grad_accum", fromScenario);
        fromScenario.push_back("training.seq_len, precision, method, hardware.count/zero");
        if (!base)
            missing.push_back({where, "workload.training: the log does not hold the model's training setup (sequence "
                                      "length, precision, method); give --scenario FILE"});
    }
    return s;
}

} // namespace

std::string detectLogKind(const std::string& text)
{
    const auto first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && text[first] == '{') {
        try {
            const json j = json::parse(text);
            if (j.is_object() && (j.contains("mean_tpot_ms") || j.contains("mean_ttft_ms") || j.contains("output_throughput")))
                return "vllm-bench";
        } catch (const json::exception&) {
        }
    }
    if (contains(text, "GPU KV cache size:") || contains(text, "LLM engine (v") || contains(text, "# GPU blocks:") ||
        contains(text, "Maximum concurrency for"))
        return "vllm-server";
    if (contains(text, "tokens_per_second_per_gpu"))
        return "torchtune";
    if (contains(text, "***** Running training *****") || contains(text, "'train_runtime'"))
        return "hf-trainer";
    return std::string();
}

RecordResult recordLogs(const std::vector<LogInput>& logs, const std::optional<Scenario>& base, const Catalog& catalog)
{
    std::vector<Diagnostic> problems;
    std::vector<Draft> drafts;
    for (const auto& log : logs) {
        Draft d;
        d.path = log.path;
        d.kind = detectLogKind(log.text);
        if (d.kind.empty()) {
            problems.push_back({log.path, "not a log record reads: expected a vLLM server log, `vllm bench serve` result "
                                          "JSON, a Hugging Face Trainer log or a torchtune metric log"});
            continue;
        }
        if (d.kind == "vllm-server")
            readVllmServer(log.text, d);
        else if (d.kind == "vllm-bench")
            readVllmBench(json::parse(log.text), d);
        else if (d.kind == "hf-trainer")
            readHfTrainer(log.text, d);
        else
            readTorchtune(log.text, d);
        if (d.measured.empty() || (d.kind == "vllm-server" && !d.measured.contains("kv_cache_tokens")))
            problems.push_back({log.path, "no measurement found (" + d.kind + " log without its figures)"});
        drafts.push_back(std::move(d));
    }
    // A bench result borrows the parallel sizes and dtype of a server log of the same model.
    for (auto& d : drafts) {
        if (d.kind != "vllm-bench")
            continue;
        for (const auto& s : drafts)
            if (s.kind == "vllm-server" && !s.model.empty() && presetForRepoId(s.model) == presetForRepoId(d.model)) {
                if (!d.tp && s.tp)
                    d.tp = s.tp;
                if (!d.pp && s.pp)
                    d.pp = s.pp;
                if (!d.precision && s.precision)
                    d.precision = s.precision;
                if (!d.kvPrecision && s.kvPrecision)
                    d.kvPrecision = s.kvPrecision;
                d.read.push_back("tensor/pipeline parallel sizes and dtype from " + s.path);
                break;
            }
    }
    ordered_json doc = ordered_json::array();
    RecordResult result;
    for (const auto& d : drafts) {
        std::vector<std::string> fromScenario;
        const std::size_t before = problems.size();
        Scenario s = buildScenario(d, base, catalog, fromScenario, problems);
        if (problems.size() > before)
            continue;
        const auto v = validateScenario(s);
        if (!v.empty()) {
            for (const auto& p : v)
                problems.push_back({d.path, p.text()});
            continue;
        }
        ordered_json r;
        r["kind"] = "scenario_run";
        r["name"] = stem(d.path);
        r["log_format"] = d.kind;
        r["source"] = d.path;
        r["gpu_id"] = s.hardware.gpus.front();
        r["scenario"] = ordered_json::parse(scenarioToJson(s));
        r["measured"] = d.measured;
        r["read"] = d.read;
        r["unread"] = d.unread;
        r["from_scenario"] = fromScenario;
        doc.push_back(r);
        std::string line = d.path + " (" + d.kind + "): " + std::to_string(d.measured.size()) + " measured values";
        if (!fromScenario.empty()) {
            line += "; from --scenario:";
            for (const auto& f : fromScenario)
                line += " " + f;
        }
        if (!d.unread.empty())
            line += "; not in the log: " + std::to_string(d.unread.size()) + " item(s)";
        result.summary.push_back(line);
        ++result.records;
    }
    if (!problems.empty())
        throw InputError(std::move(problems));
    result.json = doc.dump(1) + "\n";
    return result;
}

} // namespace gp
