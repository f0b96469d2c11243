#pragma once
#include "core/base/errors.h"
#include "core/scenario/scenario.h"

#include <QObject>
#include <QString>
#include <QVariant>

#include <functional>
#include <utility>
#include <vector>

class QUndoStack;

Q_DECLARE_METATYPE(gp::ModelSpec)

namespace gp::ui {

/// The scenario being edited. Every user edit goes through the undo stack as one
/// generic ChangeValueCommand (scenariomodel.cpp); consecutive edits of the same
/// field merge into one undo step. Invalid values are kept (never dropped) and
/// reported through problems(), each naming its key path.
class ScenarioModel final : public QObject
{
    Q_OBJECT
public:
    /// Every editable value. The value's QVariant type is given per field; an
    /// invalid QVariant means "not set" for the optional ones.
    enum class Field {
        Name,              // QString
        Model,             // gp::ModelSpec
        Mode,              // int (gp::Mode)
        Runtime,           // int (gp::Runtime)
        // workload.training
        TrainMethod,       // int
        LoraRank,          // int
        LoraTargets,       // QStringList
        TrainPrecision,    // int
        Optimizer,         // int
        MicroBatch,        // int
        SeqLen,            // int
        TrainImageSize,    // int
        GradAccum,         // int
        Checkpointing,     // int
        DatasetTokens,     // double, optional
        DatasetSamples,    // double, optional
        Epochs,            // double
        DeadlineHours,     // double, optional
        BudgetUsd,         // double, optional
        // workload.inference
        InferPrecision,    // int
        KvPrecision,       // int, optional (unset = same as precision)
        Batch,             // int
        PromptTokens,      // int
        OutputTokens,      // int
        InferImageSize,    // int
        TtftMs,            // double, optional
        TpotMs,            // double, optional
        RequestsPerS,      // double, optional
        // hardware
        Gpus,              // QStringList (empty = whole catalog)
        Count,             // int
        Tp,                // int
        Pp,                // int
        Zero,              // int
        ShardGroup,        // int, optional (extension key hardware.shard_group; unset = all data-parallel GPUs)
        MaxCount,          // int (the planner's search limit)
        NetworkGbps,       // double (node-to-node, per GPU)
        Mig,               // QString: "" = whole GPU, "1g".."7g" = one MIG slice
        // pricing
        PricingModel,      // int
        Utilization,       // double
        ElectricityUsdPerKwh, // double
        Pue,               // double
        AmortizationYears, // double
        HostingUsdPerGpuYear, // double (owned GPUs: rack, network, staff share)
        // Issue #16 keys (after the others, so the fields above keep their numbers)
        GlobalBatchTokens, // double, optional (workload.training.global_batch_tokens)
        ChunkedLoss,       // bool
        OptimizerInBackward, // bool
        MemoryFraction,    // double (workload.inference.memory_fraction)
        TtftP99Ms,         // double, optional
        Precisions,        // QStringList (hardware.precisions; empty = the workload's own)
        Consumer,          // bool (hardware.consumer)
        Confidence,        // double (hardware.confidence)
        FieldCount
    };
    Q_ENUM(Field)

    explicit ScenarioModel(QObject* parent = nullptr);
    ~ScenarioModel() override;

    const gp::Scenario& scenario() const { return m_scenario; }
    QUndoStack* undoStack() const { return m_undo; }

    QVariant value(Field f) const;
    /// Records an edit on the undo stack (a no-op when the value is unchanged).
    /// An edit that would break a rule between fields changes the dependent field
    /// with it, in the same undo step (dependentEdits): the form never reaches a
    /// state the file format refuses through such a rule.
    void setValue(Field f, const QVariant& v);
    /// The edits that go with setting f to v: mode training -> runtime "eager"
    /// (not "serving"); runtime "serving" -> mode inference; a MIG slice -> one
    /// GPU per job (count, tp, pp 1) and, with no GPU ticked, the GPUs that have
    /// the slice (migGpuLookup); no GPU ticked, or more than one per job -> whole GPU.
    std::vector<std::pair<Field, QVariant>> dependentEdits(Field f, const QVariant& v) const;
    /// The GPU ids (from the catalog) that offer a MIG slice; set by the form.
    void setMigGpuLookup(std::function<QStringList(const QString& slice)> lookup) { m_migGpus = std::move(lookup); }

    // Typed setters for the common edits (all go through setValue).
    /// Names the scenario explicitly: the name no longer follows the content.
    void setName(const QString& name) { setValue(Field::Name, name); }
    /// Goes back to the automatic name (undoable).
    void useAutomaticName() { setValue(Field::Name, QVariant()); }
    /// True while the name follows the content (gp::autoScenarioName: model and
    /// mode), i.e. until the user names the scenario or opens a file whose name
    /// differs from the automatic one.
    bool hasAutomaticName() const { return m_autoName; }
    /// A safe file-name stem from the current name ("llama-3-1-70b-inference").
    QString fileNameStem() const;
    void setModelSpec(const gp::ModelSpec& spec) { setValue(Field::Model, QVariant::fromValue(spec)); }
    void setMode(gp::Mode m) { setValue(Field::Mode, static_cast<int>(m)); }
    void setMicroBatch(int v) { setValue(Field::MicroBatch, v); }
    void setSeqLen(int v) { setValue(Field::SeqLen, v); }
    void setBatch(int v) { setValue(Field::Batch, v); }
    void setGpus(const QStringList& ids) { setValue(Field::Gpus, ids); }
    void setCount(int v) { setValue(Field::Count, v); }
    void setPricingModel(gp::PricingModel m) { setValue(Field::PricingModel, static_cast<int>(m)); }

    /// Several edits as one undo step (a QUndoStack macro named `text`); unchanged
    /// values are skipped. Returns false (and records nothing) when nothing changes.
    bool setValues(const QString& text, const std::vector<std::pair<Field, QVariant>>& values);

    /// Replaces the whole scenario (New / Open): clears the undo stack, marks it clean.
    void resetScenario(const gp::Scenario& s);

    /// JSON key path of a field in the scenario format, e.g. "workload.training.micro_batch".
    static QString keyPath(Field f);
    /// Human label with unit, e.g. "Micro-batch (per GPU)".
    static QString label(Field f);
    /// A problem's text with its leading key path replaced by the field's label
    /// ("workload.training.micro_batch: must be..." -> "Micro-batch (per GPU): must be...").
    static QString withLabel(const QString& text);
    static QString withLabel(const gp::Diagnostic& d) { return withLabel(QString::fromStdString(d.text())); }
    /// Every current problem, each as withLabel.
    QStringList problemTexts() const;

    /// Problems with the current values (validateScenario + model resolution), by key path.
    const std::vector<gp::Diagnostic>& problems() const { return m_problems; }
    bool isValid() const { return m_problems.empty(); }
    /// The messages of the problems at or under the field's key path ("" when none).
    QString problemsFor(Field f) const;

    /// Applies a value without recording it (used by the undo command). For
    /// Field::Name an invalid QVariant means "the automatic name".
    void applyValue(Field f, const QVariant& v);

signals:
    /// Any value changed (edit, undo, redo or reset).
    void changed();
    void fieldChanged(gp::ui::ScenarioModel::Field f);
    /// The whole scenario was replaced.
    void scenarioReset();
    void problemsChanged();

private:
    void revalidate();

    gp::Scenario m_scenario;
    QUndoStack* m_undo = nullptr;
    std::vector<gp::Diagnostic> m_problems;
    bool m_autoName = true;
    bool m_applyingDependents = false;
    std::function<QStringList(const QString& slice)> m_migGpus;
    std::vector<gp::Diagnostic> m_modelProblems; // from resolving the model spec
};

} // namespace gp::ui
