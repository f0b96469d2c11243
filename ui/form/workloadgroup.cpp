#include "workloadgroup.h"

#include "formbinder.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QRadioButton>
#include <QStackedWidget>
#include <QVBoxLayout>

namespace gp::ui {

using Field = ScenarioModel::Field;

namespace {

const char* const kLoraModules[] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};

} // namespace

WorkloadGroup::WorkloadGroup(FormBinder* binder, QWidget* parent)
    : QGroupBox(tr("Workload"), parent)
    , m_binder(binder)
    , m_model(binder->model())
{
    auto* v = new QVBoxLayout(this);
    auto* top = m_binder->newForm();

    auto* modeRow = new QWidget;
    auto* modeLayout = new QHBoxLayout(modeRow);
    modeLayout->setContentsMargins(0, 0, 0, 0);
    m_modeGroup = new QButtonGroup(this);
    auto* train = new QRadioButton(tr("&Training"));
    auto* infer = new QRadioButton(tr("&Inference"));
    train->setAccessibleName(tr("Mode: training"));
    infer->setAccessibleName(tr("Mode: inference"));
    m_modeGroup->addButton(train, static_cast<int>(gp::Mode::Training));
    m_modeGroup->addButton(infer, static_cast<int>(gp::Mode::Inference));
    modeLayout->addWidget(train);
    modeLayout->addWidget(infer);
    modeLayout->addStretch(1);
    connect(m_modeGroup, &QButtonGroup::idToggled, this, [this](int id, bool on) {
        if (!on || m_binder->isUpdating())
            return;
        // hardware.precisions names the mode's formats: switching mode clears
        // them in the same undo step, so the form never holds a file the format refuses.
        if (m_model->value(Field::Precisions).toStringList().isEmpty())
            m_model->setValue(Field::Mode, id);
        else
            m_model->setValues(tr("Change Mode"), {{Field::Mode, id}, {Field::Precisions, QStringList()}});
    });
    m_binder->bind(Field::Mode, modeRow, [this](const QVariant& val) {
        if (auto* b = m_modeGroup->button(val.toInt()))
            b->setChecked(true);
        m_workloadStack->setCurrentIndex(val.toInt());
    });
    top->addRow(tr("Mode"), modeRow);
    top->addRow(tr("Runtime"),
                m_binder->enumCombo(Field::Runtime,
                          {{tr("Eager (plain PyTorch / HF transformers)"), static_cast<int>(gp::Runtime::Eager)},
                           {tr("Optimized (fused kernels, compiled, static KV cache)"),
                            static_cast<int>(gp::Runtime::Optimized)},
                           {tr("Serving engine (vLLM, TensorRT-LLM, SGLang; inference only)"),
                            static_cast<int>(gp::Runtime::Serving)}},
                          tr("How the job runs; optimized runtimes reach a higher fraction of peak. A serving "
                             "engine pages the KV cache, prefills in chunks and batches continuously.")));
    v->addLayout(top);

    m_workloadStack = new QStackedWidget;
    // Training page
    auto* tp = new QWidget;
    auto* tf = m_binder->newForm();
    tf->setContentsMargins(0, 0, 0, 0);
    tp->setLayout(tf);
    tf->addRow(tr("Method"), m_binder->enumCombo(Field::TrainMethod,
                                       {{tr("Full fine-tune / pre-train"), static_cast<int>(gp::TrainMethod::Full)},
                                        {tr("LoRA"), static_cast<int>(gp::TrainMethod::Lora)},
                                        {tr("QLoRA (4-bit base)"), static_cast<int>(gp::TrainMethod::Qlora)}},
                                       tr("Which parameters are trained")));
    m_loraBox = new QWidget;
    auto* loraLayout = new QGridLayout(m_loraBox);
    loraLayout->setContentsMargins(0, 0, 0, 0);
    loraLayout->addWidget(new QLabel(tr("Rank")), 0, 0);
    loraLayout->addWidget(m_binder->number(Field::LoraRank, tr("LoRA rank r (adapter width)"), 8), 0, 1);
    int k = 0;
    for (const char* mod : kLoraModules) {
        auto* cb = new QCheckBox(QString::fromLatin1(mod));
        cb->setAccessibleName(tr("LoRA target %1").arg(QString::fromLatin1(mod)));
        cb->setToolTip(tr("Attach a LoRA adapter to every %1 projection").arg(QString::fromLatin1(mod)));
        connect(cb, &QCheckBox::toggled, this, [this] {
            if (m_binder->isUpdating())
                return;
            QStringList targets;
            for (auto* c : m_loraTargets)
                if (c->isChecked())
                    targets << c->text();
            m_model->setValue(Field::LoraTargets, targets);
        });
        loraLayout->addWidget(cb, 1 + k / 2, k % 2); // two a row: the form fits a narrow window
        m_loraTargets.push_back(cb);
        ++k;
    }
    m_binder->bind(Field::LoraTargets, m_loraBox, [this](const QVariant& val) {
        const QStringList l = val.toStringList();
        for (auto* c : m_loraTargets)
            c->setChecked(l.contains(c->text()));
    });
    tf->addRow(tr("LoRA"), m_loraBox);
    tf->addRow(tr("Precision"),
               m_binder->enumCombo(Field::TrainPrecision,
                         {{tr("FP32"), static_cast<int>(gp::TrainPrecision::FP32)},
                          {tr("TF32"), static_cast<int>(gp::TrainPrecision::TF32)},
                          {tr("AMP BF16 (fp32 master weights)"), static_cast<int>(gp::TrainPrecision::AmpBF16)},
                          {tr("AMP FP16 (fp32 master weights)"), static_cast<int>(gp::TrainPrecision::AmpFP16)},
                          {tr("Pure BF16 (weights and states)"), static_cast<int>(gp::TrainPrecision::BF16)},
                          {tr("FP8"), static_cast<int>(gp::TrainPrecision::FP8)}},
                         tr("Number formats for weights, optimizer states and matmuls")));
    tf->addRow(tr("Optimizer"), m_binder->enumCombo(Field::Optimizer,
                                          {{tr("AdamW"), static_cast<int>(gp::Optimizer::AdamW)},
                                           {tr("AdamW 8-bit"), static_cast<int>(gp::Optimizer::AdamW8bit)},
                                           {tr("SGD"), static_cast<int>(gp::Optimizer::SGD)},
                                           {tr("SGD with momentum"), static_cast<int>(gp::Optimizer::SGDMomentum)}},
                                          tr("Optimizer; sets the bytes of state per trained parameter")));
    tf->addRow(ScenarioModel::label(Field::MicroBatch),
               m_binder->number(Field::MicroBatch, tr("Sequences (or images) per GPU per forward pass")));
    tf->addRow(ScenarioModel::label(Field::SeqLen),
               m_binder->number(Field::SeqLen, tr("Tokens per training sequence (language models)"), 256));
    tf->addRow(ScenarioModel::label(Field::TrainImageSize),
               m_binder->number(Field::TrainImageSize, tr("Input image side in pixels (vision models)"), 16));
    tf->addRow(ScenarioModel::label(Field::GradAccum),
               m_binder->number(Field::GradAccum, tr("Micro-batches accumulated per optimizer step")));
    tf->addRow(ScenarioModel::label(Field::GlobalBatchTokens),
               m_binder->number(Field::GlobalBatchTokens,
                                tr("The global batch to hold, in tokens per optimizer step; the planner then chooses "
                                   "micro-batch, accumulation and data-parallel width under it"),
                                1048576, 0, true));
    auto* lossFlags = new QWidget;
    auto* lossLayout = new QHBoxLayout(lossFlags);
    lossLayout->setContentsMargins(0, 0, 0, 0);
    auto flag = [this, lossLayout](Field f, const QString& text, const QString& tip) {
        auto* cb = new QCheckBox(text);
        cb->setToolTip(tip);
        connect(cb, &QCheckBox::toggled, this, [this, f](bool on) {
            if (!m_binder->isUpdating())
                m_model->setValue(f, on);
        });
        m_binder->bind(f, cb, [cb](const QVariant& val) { cb->setChecked(val.toBool()); });
        lossLayout->addWidget(cb);
    };
    flag(Field::ChunkedLoss, tr("Chunked loss"),
         tr("Cross-entropy in chunks: the logits are never upcast whole (torchtune's default on one GPU)"));
    flag(Field::OptimizerInBackward, tr("Optimizer in backward"),
         tr("Each gradient is applied and freed as soon as it is computed: no full gradient buffer (torchtune)"));
    lossLayout->addStretch(1);
    tf->addRow(tr("Memory savers"), lossFlags);
    tf->addRow(ScenarioModel::label(Field::Checkpointing),
               m_binder->enumCombo(Field::Checkpointing,
                         {{tr("None"), static_cast<int>(gp::Checkpointing::None)},
                          {tr("Selective (recompute attention)"), static_cast<int>(gp::Checkpointing::Selective)},
                          {tr("Full (recompute each layer)"), static_cast<int>(gp::Checkpointing::Full)}},
                         tr("Trade recompute time for activation memory")));
    tf->addRow(tr("Dataset (M tokens)"),
               m_binder->number(Field::DatasetTokens, tr("Training tokens per epoch, in millions"), 100, 6, true));
    tf->addRow(tr("Dataset (K samples)"),
               m_binder->number(Field::DatasetSamples, tr("Training samples (images) per epoch, in thousands"), 100, 3,
                      true));
    tf->addRow(ScenarioModel::label(Field::Epochs), m_binder->number(Field::Epochs, tr("Passes over the dataset"), 0.5));
    tf->addRow(ScenarioModel::label(Field::DeadlineHours),
               m_binder->number(Field::DeadlineHours, tr("Target: finish within this many hours"), 1, 0, true));
    tf->addRow(ScenarioModel::label(Field::BudgetUsd),
               m_binder->number(Field::BudgetUsd, tr("Target: total cost at most this many USD"), 1000, 0, true));
    m_workloadStack->addWidget(tp);

    // Inference page
    auto* ip = new QWidget;
    auto* inf = m_binder->newForm();
    inf->setContentsMargins(0, 0, 0, 0);
    ip->setLayout(inf);
    const std::vector<std::pair<QString, int>> kvPrecisions = {
        {tr("FP32"), static_cast<int>(gp::InferPrecision::FP32)}, {tr("FP16"), static_cast<int>(gp::InferPrecision::FP16)},
        {tr("BF16"), static_cast<int>(gp::InferPrecision::BF16)}, {tr("FP8"), static_cast<int>(gp::InferPrecision::FP8)},
        {tr("INT8"), static_cast<int>(gp::InferPrecision::INT8)}, {tr("INT4 (weight-only)"), static_cast<int>(gp::InferPrecision::INT4)}};
    // FP4 (NVFP4) is a weight format only: the KV cache list stops at INT4.
    auto inferPrecisions = kvPrecisions;
    inferPrecisions.emplace_back(tr("FP4 (NVFP4; weight-only without Blackwell)"), static_cast<int>(gp::InferPrecision::FP4));
    // -1: precision "checkpoint", the weights as the checkpoint stores them (MXFP4 experts, FP8 blocks, ...).
    inferPrecisions.emplace_back(tr("As the checkpoint stores them"), -1);
    inf->addRow(ScenarioModel::label(Field::InferPrecision),
                m_binder->enumCombo(Field::InferPrecision, inferPrecisions, tr("Weight format served")));
    inf->addRow(ScenarioModel::label(Field::KvPrecision),
                m_binder->enumCombo(Field::KvPrecision, kvPrecisions, tr("KV cache element format"),
                          tr("Same as weights")));
    inf->addRow(ScenarioModel::label(Field::Batch),
                m_binder->number(Field::Batch, tr("Concurrent sequences (or images per batch)")));
    inf->addRow(ScenarioModel::label(Field::PromptTokens),
                m_binder->number(Field::PromptTokens, tr("Prompt length in tokens"), 128));
    inf->addRow(ScenarioModel::label(Field::OutputTokens),
                m_binder->number(Field::OutputTokens, tr("Generated tokens per request"), 64));
    inf->addRow(ScenarioModel::label(Field::InferImageSize),
                m_binder->number(Field::InferImageSize, tr("Input image side in pixels (vision models)"), 16));
    inf->addRow(ScenarioModel::label(Field::TtftMs),
                m_binder->number(Field::TtftMs, tr("Target: time to first token at most (ms)"), 50, 0, true));
    inf->addRow(ScenarioModel::label(Field::TpotMs),
                m_binder->number(Field::TpotMs, tr("Target: time per output token at most (ms)"), 5, 0, true));
    inf->addRow(ScenarioModel::label(Field::RequestsPerS),
                m_binder->number(Field::RequestsPerS, tr("Target: requests per second to serve"), 1, 0, true));
    inf->addRow(ScenarioModel::label(Field::TtftP99Ms),
                m_binder->number(Field::TtftP99Ms, tr("Target: 99th percentile of the time to first token (ms)"), 100,
                                 0, true));
    inf->addRow(ScenarioModel::label(Field::MemoryFraction),
                m_binder->number(Field::MemoryFraction,
                                 tr("Serving engine: the share of GPU memory it may use (vLLM gpu_memory_utilization, "
                                    "default 0.9); its KV blocks fill what the weights leave, and it admits as many "
                                    "sequences as they hold"),
                                 0.05));
    m_workloadStack->addWidget(ip);
    v->addWidget(m_workloadStack);
}

void WorkloadGroup::updateKvSameLabel()
{
    auto* kv = qobject_cast<QComboBox*>(m_binder->editorFor(Field::KvPrecision));
    const int same = kv ? kv->findData(QVariant()) : -1;
    if (same < 0)
        return;
    // The core's default: the weights' format, except INT4 weights keep an FP16
    // cache and FP4 weights an FP8 one (FP16 on GPUs without FP8).
    const auto weights = m_model->scenario().inference.precision;
    if (m_model->scenario().inference.checkpointWeights) {
        kv->setItemText(same, tr("Default (BF16)"));
        return;
    }
    if (weights == gp::InferPrecision::FP4) {
        kv->setItemText(same, tr("Default (FP8; FP16 without FP8)"));
        return;
    }
    const auto kvFormat = weights == gp::InferPrecision::INT4 ? gp::InferPrecision::FP16 : weights;
    auto* precision = qobject_cast<QComboBox*>(m_binder->editorFor(Field::InferPrecision));
    QString name = precision ? precision->itemText(precision->findData(static_cast<int>(kvFormat))) : QString();
    kv->setItemText(same, tr("Same as weights (%1)").arg(name));
}

void WorkloadGroup::updateEnabledState()
{
    const auto& s = m_model->scenario();
    const bool lm = s.model.isLanguageModel();
    m_loraBox->setEnabled(s.training.method != gp::TrainMethod::Full);
    for (const Field f : {Field::SeqLen, Field::PromptTokens, Field::OutputTokens, Field::TtftMs, Field::TpotMs,
                          Field::GlobalBatchTokens, Field::ChunkedLoss, Field::TtftP99Ms})
        if (auto* w = m_binder->editorFor(f))
            w->setEnabled(lm);
    for (const Field f : {Field::TrainImageSize, Field::InferImageSize})
        if (auto* w = m_binder->editorFor(f))
            w->setEnabled(!lm);
}

} // namespace gp::ui
