#include "scenariomodel.h"

#include "changevaluecommand.h"
#include "format.h"

#include "core/scenario/scenarioname.h"

#include <QStringList>
#include <QUndoStack>

#include <algorithm>
#include <array>
#include <exception>
#include <optional>

namespace gp::ui {

namespace {

using Field = ScenarioModel::Field;

struct FieldInfo {
    const char* path;
    const char* label;
};

// Indexed by Field; the key paths are those of the scenario format (and of the
// core's Diagnostic::path), so problems map back to the widget that shows them.
constexpr std::array<FieldInfo, static_cast<std::size_t>(Field::FieldCount)> kFields{{
    {"name", "Scenario name"},
    {"model", "Model"},
    {"workload.mode", "Mode"},
    {"workload.runtime", "Runtime"},
    {"workload.training.method", "Method"},
    {"workload.training.lora_rank", "LoRA rank"},
    {"workload.training.lora_targets", "LoRA targets"},
    {"workload.training.precision", "Precision"},
    {"workload.training.optimizer", "Optimizer"},
    {"workload.training.micro_batch", "Micro-batch (per GPU)"},
    {"workload.training.seq_len", "Sequence length (tokens)"},
    {"workload.training.image_size", "Image size (px)"},
    {"workload.training.grad_accum", "Gradient accumulation (steps)"},
    {"workload.training.activation_checkpointing", "Activation checkpointing"},
    {"workload.training.dataset_tokens", "Dataset (tokens)"},
    {"workload.training.dataset_samples", "Dataset (samples)"},
    {"workload.training.epochs", "Epochs"},
    {"workload.training.targets.deadline_hours", "Deadline (h)"},
    {"workload.training.targets.budget_usd", "Budget (USD)"},
    {"workload.inference.precision", "Precision"},
    {"workload.inference.kv_precision", "KV cache precision"},
    {"workload.inference.batch", "Batch (concurrent sequences)"},
    {"workload.inference.prompt_tokens", "Prompt (tokens)"},
    {"workload.inference.output_tokens", "Output (tokens)"},
    {"workload.inference.image_size", "Image size (px)"},
    {"workload.inference.targets.ttft_ms", "TTFT target (ms)"},
    {"workload.inference.targets.tpot_ms", "TPOT target (ms)"},
    {"workload.inference.targets.requests_per_s", "Load (requests/s)"},
    {"hardware.gpus", "GPUs"},
    {"hardware.count", "GPUs per job"},
    {"hardware.tp", "Tensor parallel"},
    {"hardware.pp", "Pipeline parallel"},
    {"hardware.zero", "ZeRO stage"},
    {"hardware.shard_group", "HSDP shard group (GPUs)"},
    {"hardware.max_count", "Most GPUs to plan for"},
    {"hardware.network_gbps", "Network between nodes (Gbit/s)"},
    {"hardware.mig", "MIG slice"},
    {"pricing.model", "Pricing"},
    {"pricing.utilization", "Utilization"},
    {"pricing.electricity_usd_per_kwh", "Electricity (USD/kWh)"},
    {"pricing.pue", "PUE"},
    {"pricing.amortization_years", "Amortization (years)"},
    {"pricing.hosting_usd_per_gpu_year", "Hosting (USD per GPU-year)"},
    {"workload.training.global_batch_tokens", "Global batch to hold (tokens)"},
    {"workload.training.chunked_loss", "Chunked loss"},
    {"workload.training.optimizer_in_backward", "Optimizer in backward"},
    {"workload.inference.memory_fraction", "Engine memory share"},
    {"workload.inference.targets.ttft_p99_ms", "TTFT p99 target (ms)"},
    {"hardware.precisions", "Precisions the planner may use"},
    {"hardware.consumer", "GeForce cards for serving"},
    {"hardware.confidence", "Plan confidence"},
}};

QVariant optionalValue(const std::optional<double>& v)
{
    return v ? QVariant(*v) : QVariant();
}

std::optional<double> toOptional(const QVariant& v)
{
    if (!v.isValid() || v.isNull())
        return std::nullopt;
    return v.toDouble();
}

QStringList toQStringList(const std::vector<std::string>& v)
{
    QStringList out;
    out.reserve(static_cast<qsizetype>(v.size()));
    for (const auto& s : v)
        out << QString::fromStdString(s);
    return out;
}

std::vector<std::string> toStdStrings(const QStringList& l)
{
    std::vector<std::string> out;
    out.reserve(static_cast<std::size_t>(l.size()));
    for (const auto& s : l)
        out.push_back(s.toStdString());
    return out;
}

bool sameSpec(const gp::ModelSpec& a, const gp::ModelSpec& b)
{
    return a.form == b.form && a.presetId == b.presetId && a.jsonText == b.jsonText && a.params == b.params &&
           a.family == b.family && a.moe.experts == b.moe.experts && a.moe.active == b.moe.active &&
           a.moe.shared == b.moe.shared && a.moe.expertFfnHidden == b.moe.expertFfnHidden &&
           a.moe.denseLayers == b.moe.denseLayers;
}

template <typename E>
E toEnum(const QVariant& v)
{
    return static_cast<E>(v.toInt());
}

} // namespace

ScenarioModel::ScenarioModel(QObject* parent)
    : QObject(parent)
    , m_scenario(gp::defaultScenario())
    , m_undo(new QUndoStack(this))
{
    revalidate();
}

ScenarioModel::~ScenarioModel() = default;

QString ScenarioModel::keyPath(Field f)
{
    return QString::fromLatin1(kFields.at(static_cast<std::size_t>(f)).path);
}

QString ScenarioModel::label(Field f)
{
    return QString::fromUtf8(kFields.at(static_cast<std::size_t>(f)).label);
}

QVariant ScenarioModel::value(Field f) const
{
    const auto& s = m_scenario;
    const auto& t = s.training;
    const auto& i = s.inference;
    switch (f) {
    case Field::Name: return QString::fromStdString(s.name);
    case Field::Model: return QVariant::fromValue(s.modelSpec);
    case Field::Mode: return static_cast<int>(s.mode);
    case Field::Runtime: return static_cast<int>(s.runtime);
    case Field::TrainMethod: return static_cast<int>(t.method);
    case Field::LoraRank: return t.loraRank;
    case Field::LoraTargets: return toQStringList(t.loraTargets);
    case Field::TrainPrecision: return static_cast<int>(t.precision);
    case Field::Optimizer: return static_cast<int>(t.optimizer);
    case Field::MicroBatch: return t.microBatch;
    case Field::SeqLen: return t.seqLen;
    case Field::TrainImageSize: return t.imageSize;
    case Field::GradAccum: return t.gradAccum;
    case Field::Checkpointing: return static_cast<int>(t.checkpointing);
    case Field::DatasetTokens: return optionalValue(t.datasetTokens);
    case Field::DatasetSamples: return optionalValue(t.datasetSamples);
    case Field::Epochs: return t.epochs;
    case Field::DeadlineHours: return optionalValue(t.targets.deadlineHours);
    case Field::BudgetUsd: return optionalValue(t.targets.budgetUsd);
    case Field::InferPrecision: return i.checkpointWeights ? -1 : static_cast<int>(i.precision);
    case Field::KvPrecision: return i.kvPrecision ? QVariant(static_cast<int>(*i.kvPrecision)) : QVariant();
    case Field::Batch: return i.batch;
    case Field::PromptTokens: return i.promptTokens;
    case Field::OutputTokens: return i.outputTokens;
    case Field::InferImageSize: return i.imageSize;
    case Field::TtftMs: return optionalValue(i.targets.ttftMs);
    case Field::TpotMs: return optionalValue(i.targets.tpotMs);
    case Field::RequestsPerS: return optionalValue(i.targets.requestsPerS);
    case Field::Gpus: return toQStringList(s.hardware.gpus);
    case Field::Count: return s.hardware.count;
    case Field::Tp: return s.hardware.tp;
    case Field::Pp: return s.hardware.pp;
    case Field::Zero: return s.hardware.zero;
    case Field::ShardGroup: return s.hardware.shardGroup > 0 ? QVariant(s.hardware.shardGroup) : QVariant();
    case Field::MaxCount: return s.hardware.maxCount;
    case Field::NetworkGbps: return s.hardware.networkGbps;
    case Field::Mig: return QString::fromStdString(s.hardware.mig);
    case Field::PricingModel: return static_cast<int>(s.pricing.model);
    case Field::Utilization: return s.pricing.utilization;
    case Field::ElectricityUsdPerKwh: return s.pricing.electricityUsdPerKwh;
    case Field::Pue: return s.pricing.pue;
    case Field::AmortizationYears: return s.pricing.amortizationYears;
    case Field::HostingUsdPerGpuYear: return s.pricing.hostingUsdPerGpuYear;
    case Field::GlobalBatchTokens: return optionalValue(t.globalBatchTokens);
    case Field::ChunkedLoss: return t.chunkedLoss;
    case Field::OptimizerInBackward: return t.optimizerInBackward;
    case Field::MemoryFraction: return i.memoryFraction;
    case Field::TtftP99Ms: return optionalValue(i.targets.ttftP99Ms);
    case Field::Precisions: return toQStringList(s.hardware.precisions);
    case Field::Consumer: return s.hardware.consumer;
    case Field::Confidence: return s.hardware.confidence;
    case Field::FieldCount: break;
    }
    return {};
}

void ScenarioModel::setValue(Field f, const QVariant& v)
{
    if (f == Field::Name) {
        // The undo step remembers whether the name was automatic (an invalid value).
        const bool toAuto = !v.isValid();
        if (toAuto ? m_autoName : v.toString() == value(f).toString())
            return;
        m_undo->push(new ChangeValueCommand(this, f, m_autoName ? QVariant() : value(f), toAuto ? QVariant() : v));
        return;
    }
    const QVariant old = value(f);
    if (f == Field::Model) {
        if (sameSpec(old.value<gp::ModelSpec>(), v.value<gp::ModelSpec>()))
            return;
    } else if (old == v || (!old.isValid() && !v.isValid())) {
        return;
    }
    if (!m_applyingDependents) {
        auto edits = dependentEdits(f, v);
        if (!edits.empty()) {
            edits.insert(edits.begin(), {f, v});
            m_applyingDependents = true;
            setValues(tr("Change %1").arg(label(f)), edits);
            m_applyingDependents = false;
            return;
        }
    }
    m_undo->push(new ChangeValueCommand(this, f, old, v));
}

std::vector<std::pair<Field, QVariant>> ScenarioModel::dependentEdits(Field f, const QVariant& v) const
{
    const auto& s = m_scenario;
    const auto& h = s.hardware;
    std::vector<std::pair<Field, QVariant>> out;
    const auto wholeGpu = [&] {
        if (!h.mig.empty())
            out.emplace_back(Field::Mig, QString());
    };
    switch (f) {
    case Field::Mode:
        if (v.toInt() == static_cast<int>(gp::Mode::Training) && s.runtime == gp::Runtime::Serving)
            out.emplace_back(Field::Runtime, static_cast<int>(gp::Runtime::Eager));
        break;
    case Field::Runtime:
        if (v.toInt() == static_cast<int>(gp::Runtime::Serving) && s.mode == gp::Mode::Training)
            out.emplace_back(Field::Mode, static_cast<int>(gp::Mode::Inference));
        break;
    case Field::Mig: {
        const QString slice = v.toString();
        if (slice.isEmpty())
            break;
        for (Field one : {Field::Count, Field::Tp, Field::Pp})
            if (value(one).toInt() != 1)
                out.emplace_back(one, 1);
        if (h.gpus.empty() && m_migGpus) {
            const QStringList ids = m_migGpus(slice);
            if (!ids.isEmpty())
                out.emplace_back(Field::Gpus, ids);
        }
        break;
    }
    case Field::Gpus:
        if (v.toStringList().isEmpty())
            wholeGpu();
        break;
    case Field::Count:
    case Field::Tp:
    case Field::Pp:
        if (v.toInt() != 1)
            wholeGpu();
        break;
    default:
        break;
    }
    return out;
}

QString ScenarioModel::withLabel(const QString& text)
{
    // The longest key path the text starts with, followed by ':', '.' or '['.
    int best = -1;
    qsizetype bestLen = 0;
    for (int i = 0; i < static_cast<int>(Field::FieldCount); ++i) {
        const QString path = keyPath(static_cast<Field>(i));
        if (path.size() > bestLen && text.startsWith(path) && text.size() > path.size() &&
            QStringLiteral(":.[").contains(text.at(path.size()))) {
            best = i;
            bestLen = path.size();
        }
    }
    if (best < 0)
        return text;
    const qsizetype colon = text.indexOf(QStringLiteral(": "), bestLen);
    if (colon < 0)
        return text;
    return label(static_cast<Field>(best)) + text.mid(colon);
}

QStringList ScenarioModel::problemTexts() const
{
    QStringList out;
    for (const auto& d : m_problems)
        out << withLabel(d);
    return out;
}

bool ScenarioModel::setValues(const QString& text, const std::vector<std::pair<Field, QVariant>>& values)
{
    const auto differs = [this](Field f, const QVariant& v) {
        if (f == Field::Name)
            return v.isValid() ? v.toString() != value(f).toString() : !m_autoName;
        const QVariant old = value(f);
        if (f == Field::Model)
            return !sameSpec(old.value<gp::ModelSpec>(), v.value<gp::ModelSpec>());
        return !(old == v || (!old.isValid() && !v.isValid()));
    };
    if (std::none_of(values.begin(), values.end(), [&](const auto& fv) { return differs(fv.first, fv.second); }))
        return false;
    m_undo->beginMacro(text);
    for (const auto& [f, v] : values)
        setValue(f, v); // skips what is already equal (an earlier value may have set it)
    m_undo->endMacro();
    return true;
}

void ScenarioModel::applyValue(Field f, const QVariant& v)
{
    auto& s = m_scenario;
    auto& t = s.training;
    auto& i = s.inference;
    switch (f) {
    case Field::Name:
        m_autoName = !v.isValid();
        s.name = m_autoName ? gp::autoScenarioName(s) : v.toString().toStdString();
        break;
    case Field::Model: {
        s.modelSpec = v.value<gp::ModelSpec>();
        m_modelProblems.clear();
        try {
            s.model = gp::resolveModel(s.modelSpec);
        } catch (const gp::InputError& e) {
            // Keep the spec the user gave (and the last good resolved model) and say why.
            m_modelProblems = e.problems();
        } catch (const std::exception& e) {
            m_modelProblems.push_back({"model", e.what()});
        }
        break;
    }
    case Field::Mode: s.mode = toEnum<gp::Mode>(v); break;
    case Field::Runtime: s.runtime = toEnum<gp::Runtime>(v); break;
    case Field::TrainMethod: t.method = toEnum<gp::TrainMethod>(v); break;
    case Field::LoraRank: t.loraRank = v.toInt(); break;
    case Field::LoraTargets: t.loraTargets = toStdStrings(v.toStringList()); break;
    case Field::TrainPrecision: t.precision = toEnum<gp::TrainPrecision>(v); break;
    case Field::Optimizer: t.optimizer = toEnum<gp::Optimizer>(v); break;
    case Field::MicroBatch: t.microBatch = v.toInt(); break;
    case Field::SeqLen: t.seqLen = v.toInt(); break;
    case Field::TrainImageSize: t.imageSize = v.toInt(); break;
    case Field::GradAccum: t.gradAccum = v.toInt(); break;
    case Field::Checkpointing: t.checkpointing = toEnum<gp::Checkpointing>(v); break;
    case Field::DatasetTokens: t.datasetTokens = toOptional(v); break;
    case Field::DatasetSamples: t.datasetSamples = toOptional(v); break;
    case Field::Epochs: t.epochs = v.toDouble(); break;
    case Field::DeadlineHours: t.targets.deadlineHours = toOptional(v); break;
    case Field::BudgetUsd: t.targets.budgetUsd = toOptional(v); break;
    case Field::InferPrecision:
        i.checkpointWeights = v.toInt() == -1; // precision "checkpoint"
        if (!i.checkpointWeights)
            i.precision = toEnum<gp::InferPrecision>(v);
        break;
    case Field::KvPrecision:
        if (v.isValid() && !v.isNull())
            i.kvPrecision = toEnum<gp::InferPrecision>(v);
        else
            i.kvPrecision.reset();
        break;
    case Field::Batch: i.batch = v.toInt(); break;
    case Field::PromptTokens: i.promptTokens = v.toInt(); break;
    case Field::OutputTokens: i.outputTokens = v.toInt(); break;
    case Field::InferImageSize: i.imageSize = v.toInt(); break;
    case Field::TtftMs: i.targets.ttftMs = toOptional(v); break;
    case Field::TpotMs: i.targets.tpotMs = toOptional(v); break;
    case Field::RequestsPerS: i.targets.requestsPerS = toOptional(v); break;
    case Field::Gpus: s.hardware.gpus = toStdStrings(v.toStringList()); break;
    case Field::Count: s.hardware.count = v.toInt(); break;
    case Field::Tp: s.hardware.tp = v.toInt(); break;
    case Field::Pp: s.hardware.pp = v.toInt(); break;
    case Field::Zero: s.hardware.zero = v.toInt(); break;
    case Field::ShardGroup: s.hardware.shardGroup = v.isValid() && !v.isNull() ? v.toInt() : 0; break;
    case Field::MaxCount: s.hardware.maxCount = v.toInt(); break;
    case Field::NetworkGbps: s.hardware.networkGbps = v.toDouble(); break;
    case Field::Mig: s.hardware.mig = v.toString().toStdString(); break;
    case Field::PricingModel: s.pricing.model = toEnum<gp::PricingModel>(v); break;
    case Field::Utilization: s.pricing.utilization = v.toDouble(); break;
    case Field::ElectricityUsdPerKwh: s.pricing.electricityUsdPerKwh = v.toDouble(); break;
    case Field::Pue: s.pricing.pue = v.toDouble(); break;
    case Field::AmortizationYears: s.pricing.amortizationYears = v.toDouble(); break;
    case Field::HostingUsdPerGpuYear: s.pricing.hostingUsdPerGpuYear = v.toDouble(); break;
    case Field::GlobalBatchTokens: t.globalBatchTokens = toOptional(v); break;
    case Field::ChunkedLoss: t.chunkedLoss = v.toBool(); break;
    case Field::OptimizerInBackward: t.optimizerInBackward = v.toBool(); break;
    case Field::MemoryFraction: i.memoryFraction = v.toDouble(); break;
    case Field::TtftP99Ms: i.targets.ttftP99Ms = toOptional(v); break;
    case Field::Precisions: s.hardware.precisions = toStdStrings(v.toStringList()); break;
    case Field::Consumer: s.hardware.consumer = v.toBool(); break;
    case Field::Confidence: s.hardware.confidence = v.toDouble(); break;
    case Field::FieldCount: return;
    }
    // An automatic name follows the content; undo re-applies the old content, so
    // the name comes back with it.
    bool renamed = false;
    if (m_autoName && f != Field::Name) {
        std::string name = gp::autoScenarioName(s);
        renamed = name != s.name;
        if (renamed)
            s.name = std::move(name);
    }
    revalidate();
    emit fieldChanged(f);
    if (renamed)
        emit fieldChanged(Field::Name);
    emit changed();
}

QString ScenarioModel::fileNameStem() const
{
    return gp::ui::fileNameStem(QString::fromStdString(m_scenario.name));
}

void ScenarioModel::resetScenario(const gp::Scenario& s)
{
    m_scenario = s;
    m_modelProblems.clear();
    try {
        m_scenario.model = gp::resolveModel(m_scenario.modelSpec);
    } catch (const gp::InputError& e) {
        m_modelProblems = e.problems();
    } catch (const std::exception& e) {
        m_modelProblems.push_back({"model", e.what()});
    }
    // A file's own name sticks unless it is the automatic one (or missing).
    const std::string automatic = gp::autoScenarioName(m_scenario);
    m_autoName = m_scenario.name.empty() || m_scenario.name == automatic;
    if (m_autoName)
        m_scenario.name = automatic;
    m_undo->clear();
    m_undo->setClean();
    revalidate();
    emit scenarioReset();
    emit changed();
}

void ScenarioModel::revalidate()
{
    std::vector<gp::Diagnostic> next = m_modelProblems;
    for (auto& d : gp::validateScenario(m_scenario))
        next.push_back(std::move(d));
    // Cross-field rules parseScenario checks but validateScenario does not (yet):
    // same paths and wording as the parser, so a file and the form agree.
    const auto& h = m_scenario.hardware;
    const int shards = h.tp * h.pp;
    if (h.tp < 1)
        next.push_back({"hardware.tp", "must be a positive integer, got " + std::to_string(h.tp)});
    else if (h.pp < 1)
        next.push_back({"hardware.pp", "must be a positive integer, got " + std::to_string(h.pp)});
    else if (h.count >= 1 && shards > h.count)
        next.push_back({"hardware.count", "must be at least tp x pp = " + std::to_string(shards) + ", got " +
                                              std::to_string(h.count)});
    else if (h.count >= 1 && h.count % shards != 0)
        next.push_back({"hardware.count", "must be a multiple of tp x pp = " + std::to_string(shards) + ", got " +
                                              std::to_string(h.count)});
    if (m_scenario.training.datasetTokens && m_scenario.training.datasetSamples)
        next.push_back({"workload.training.dataset_samples", "give dataset_tokens or dataset_samples, not both"});
    // Both say it where they overlap: once is enough.
    for (std::size_t i = 1; i < next.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (next[j].path == next[i].path && next[j].message == next[i].message) {
                next.erase(next.begin() + static_cast<std::ptrdiff_t>(i--));
                break;
            }
    const bool same = next.size() == m_problems.size() &&
                      std::equal(next.begin(), next.end(), m_problems.begin(), [](const auto& a, const auto& b) {
                          return a.path == b.path && a.message == b.message;
                      });
    m_problems = std::move(next);
    if (!same)
        emit problemsChanged();
}

QString ScenarioModel::problemsFor(Field f) const
{
    const std::string path = keyPath(f).toStdString();
    QStringList out;
    for (const auto& d : m_problems) {
        const bool match = d.path == path || (d.path.size() > path.size() && d.path.compare(0, path.size(), path) == 0 &&
                                              (d.path[path.size()] == '.' || d.path[path.size()] == '['));
        if (match)
            out << withLabel(d);
    }
    return out.join(QLatin1Char('\n'));
}

} // namespace gp::ui
