#pragma once
// `gpuplanner-cli record`: turns the logs users already have into measured
// records that `validate` and `calibrate` read (kind "scenario_run"): a vLLM
// server log (model, parallel sizes, dtype, the KV cache and concurrency it
// reports), `vllm bench serve` result JSON (request rate, TTFT, TPOT,
// throughput), a Hugging Face Trainer log and a torchtune log (step speed,
// peak memory). The scenario each record describes is rebuilt from the log
// where the log says it; the rest comes from a base scenario (--scenario), or
// the record is refused with what is missing. The formats and the source lines
// they come from: tests/data/logs/README.md.
#include "core/scenario/scenario.h"

#include <optional>
#include <string>
#include <vector>

namespace gp {

class Catalog;

struct LogInput {
    std::string path;  // as given (the record names it)
    std::string text;
};

struct RecordResult {
    std::string json;                  // the records document (a JSON array, validate's shape)
    std::vector<std::string> summary;  // one line per record: what was read, what was not
    int records = 0;
};

/// Reads every log; throws InputError listing, per file, what could not be
/// read or what the scenario still needs (e.g. "hardware.gpus: the log does not
/// name the GPU; give --scenario FILE with hardware.gpus").
RecordResult recordLogs(const std::vector<LogInput>& logs, const std::optional<Scenario>& base, const Catalog& catalog);

/// The kind of log `text` is: "vllm-server", "vllm-bench", "hf-trainer", "torchtune" or "" (unknown).
std::string detectLogKind(const std::string& text);

} // namespace gp
