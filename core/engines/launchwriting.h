#pragma once
// Internal to the launch writers (launchwriting.cpp, launchserving.cpp,
// launchtraining.cpp): the checked command line and config keys, the checks every
// writer makes, the parts the serving writers share (header, KV dtype, replicas,
// serve.sh) and the parts the training writers share (batch line, train.py note).
#include "core/engines/enginecatalog.h"
#include "core/engines/launch.h"
#include "core/engines/launchdetail.h"
#include "core/estimate/sizing.h"

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace gp::launchwriter {

constexpr int kGpusPerNode = 8;

/// A command line whose flags are checked against the engine's list.
class Cmd {
public:
    Cmd(const EngineSpec& spec, std::string program) : m_spec(&spec) { m_tokens.push_back(std::move(program)); }
    Cmd& word(const std::string& w)
    {
        m_tokens.push_back(w);
        return *this;
    }
    Cmd& flag(const std::string& f, const std::string& value = std::string())
    {
        if (!m_spec->hasFlag(f))
            throw std::logic_error("launch: " + m_spec->name + " " + m_spec->version + " does not document the flag " + f);
        if (!value.empty() && !m_spec->accepts(f, value))
            throw std::logic_error("launch: " + m_spec->name + " does not accept " + f + " " + value);
        m_tokens.push_back(f);
        if (!value.empty())
            m_tokens.push_back(value);
        return *this;
    }
    /// One line per flag, continued with backslashes.
    std::string text(const std::string& prefix = std::string()) const
    {
        std::string out = prefix + m_tokens[0];
        for (std::size_t i = 1; i < m_tokens.size(); ++i) {
            const bool isFlag = m_tokens[i].rfind("-", 0) == 0;
            out += isFlag ? " \\\n    " + m_tokens[i] : " " + m_tokens[i];
        }
        return out;
    }
    std::string oneLine(const std::string& prefix = std::string()) const
    {
        std::string out = prefix;
        for (std::size_t i = 0; i < m_tokens.size(); ++i)
            out += (i ? " " : "") + m_tokens[i];
        return out;
    }

private:
    const EngineSpec* m_spec;
    std::vector<std::string> m_tokens;
};

/// Checks a dotted config key (and value) against the engine's documented keys.
void key(const EngineSpec& spec, const std::string& k, const std::string& value = std::string(), bool script = false);

inline std::string str(long long v) { return std::to_string(v); }
inline std::string str(int v) { return std::to_string(v); }

/// The model argument: the scenario's Hugging Face id, else "$MODEL" and a line saying to set it.
std::string modelArg(const Scenario& s, std::vector<std::string>& lines);
/// The torch dtype of a serving precision's activations.
std::string torchDtype(InferPrecision p, const Gpu& g);
/// A bash script: the comment block, then each command (in the background when several).
std::string script(const std::vector<std::string>& head, const std::vector<std::string>& commands, bool background);

// ---------------------------------------------------------------- serving

/// What every serving writer starts from: the serving estimate, its plan and header.
struct Serving {
    LaunchTarget t;
    detail::Plan plan;
    std::vector<std::string> head;
    std::vector<std::string> notes;
    int maxModelLen = 0;
    int batch = 0;
    int chunk = 0;
};

/// Refuses a training or vision scenario and MIG across GPUs; re-estimates on runtime "serving".
Serving prepareServing(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal);

/// The engine's KV cache dtype: "auto", or `fp8Name` for an 8-bit KV cache; an INT8 KV
/// cache is refused with `int8Why`, a 4-bit one with `fourBitWhy`.
std::string kvCacheDtype(const Serving& s, const EngineSpec& spec, const std::string& fp8Name, const std::string& int8Why,
                         const std::string& fourBitWhy);

/// Refuses --quantization modelopt_fp4 on a GPU without NVIDIA FP4 tensor cores.
void requireNvfp4(const LaunchTarget& t, const EngineSpec& spec);

/// The engine's command for one replica: the model argument and the replica's port.
using ReplicaCommand = std::function<Cmd(const std::string& model, int port)>;

/// serve.sh: `head` (the engine's header lines), the replica lines (ports from `port0`;
/// `engineDp` the engine's own data-parallel flag, or empty) and the notes, then one
/// command per replica on its own GPUs, each started in the background.
LaunchFiles serveScript(const Serving& s, std::vector<std::string> head, const EngineSpec& spec, int port0,
                        const std::string& engineDp, const ReplicaCommand& command);

LaunchFiles writeVllm(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal);
LaunchFiles writeSglang(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal);
LaunchFiles writeTrtllm(const LaunchTarget& t0, const EngineSpec& spec, const Calibration* cal);

// ---------------------------------------------------------------- training

/// What every training writer starts from: the workload, the layout and the header with the batch line.
struct Training {
    const LaunchTarget& t;
    const TrainingWorkload& w;
    const Hardware& h;
    std::vector<std::string> head;
    int nodes = 1;
    int perNode = 1;
    long long globalBatch = 0;
};

/// Refuses an inference scenario, TP/PP above 1 and MIG across GPUs.
Training prepareTraining(const LaunchTarget& t, const EngineSpec& spec);
/// The line saying what train.py must build (LoRA, optimizer, checkpointing).
std::string scriptArgsNote(const Training& tr);
/// launch.sh (`head`, then the one command `c`) and the engine's config file, if it has one.
LaunchFiles trainingFiles(const EngineSpec& spec, const std::vector<std::string>& head, const Cmd& c,
                          const std::vector<std::string>& notes, const std::string& configName = std::string(),
                          const std::string& configText = std::string());

LaunchFiles writeTorchrunFsdp(const LaunchTarget& t, const EngineSpec& spec, const Calibration*);
LaunchFiles writeDeepspeed(const LaunchTarget& t, const EngineSpec& spec, const Calibration*);
LaunchFiles writeAccelerate(const LaunchTarget& t, const EngineSpec& spec, const Calibration*);
LaunchFiles writeTorchtune(const LaunchTarget& t, const EngineSpec& spec, const Calibration* cal);

} // namespace gp::launchwriter
