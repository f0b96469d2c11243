#include "scenarioform.h"

#include "format.h"
#include "modelspecs.h"
#include "numberfield.h"
#include "palette.h"
#include "valuecheck.h"

#include "core/catalog.h"
#include "core/model.h"
#include "core/presets.h"

#include <QButtonGroup>
#include <QCheckBox>
#include <QComboBox>
#include <QCompleter>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QRadioButton>
#include <QSet>
#include <QSignalBlocker>
#include <QStackedWidget>
#include <QTimer>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <climits>
#include <cmath>

namespace gp::ui {

using Field = ScenarioModel::Field;

namespace {

constexpr int kIdRole = Qt::UserRole;
const char* const kLoraModules[] = {"q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj"};

QString invalidStyle(const QWidget* w)
{
    // A mid-tone red frame reads on light and dark palettes.
    return QStringLiteral("%1 { border: 2px solid %2; border-radius: 3px; }")
        .arg(QString::fromLatin1(w->metaObject()->className()), statusColor(Status::Bad).name());
}

QFormLayout* makeForm()
{
    auto* f = new QFormLayout;
    f->setRowWrapPolicy(QFormLayout::DontWrapRows);
    f->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    f->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    return f;
}

// Separate QFormLayouts size their label columns independently (Mode/Runtime sat
// left of the training fields below them); give every label the widest width.
void alignLabelColumns(const std::vector<QFormLayout*>& forms)
{
    std::vector<QLabel*> labels;
    int width = 0;
    for (auto* f : forms)
        for (int r = 0; r < f->rowCount(); ++r)
            if (auto* item = f->itemAt(r, QFormLayout::LabelRole))
                if (auto* l = qobject_cast<QLabel*>(item->widget())) {
                    labels.push_back(l);
                    width = std::max(width, l->sizeHint().width());
                }
    for (auto* l : labels) {
        l->setMinimumWidth(width);
        l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
}

} // namespace

ScenarioForm::ScenarioForm(ScenarioModel* model, QWidget* parent)
    : QScrollArea(parent)
    , m_model(model)
{
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);

    auto* nameForm = newForm();
    auto* name = new QLineEdit;
    name->setAccessibleName(ScenarioModel::label(Field::Name));
    name->setToolTip(tr("A name for this what-if; it titles the report"));
    connect(name, &QLineEdit::textEdited, this, [this](const QString& t) {
        if (!m_updating)
            m_model->setValue(Field::Name, t);
    });
    bind(Field::Name, name, [name](const QVariant& v) {
        if (name->text() != v.toString()) {
            name->setText(v.toString());
            name->setCursorPosition(0); // show a long name's beginning, not its end
        }
    });
    nameForm->addRow(tr("&Name"), name);
    layout->addLayout(nameForm);

    layout->addWidget(buildModelGroup());
    layout->addWidget(buildWorkloadGroup());
    layout->addWidget(buildHardwareGroup());
    layout->addWidget(buildPricingGroup());
    layout->addStretch(1);
    alignLabelColumns(m_forms);
    setWidget(content);

    connect(m_model, &ScenarioModel::fieldChanged, this, &ScenarioForm::showField);
    connect(m_model, &ScenarioModel::scenarioReset, this, &ScenarioForm::showAll);
    connect(m_model, &ScenarioModel::problemsChanged, this, &ScenarioForm::showProblems);
    showAll();
}

ScenarioForm::~ScenarioForm() = default;

QFormLayout* ScenarioForm::newForm()
{
    m_forms.push_back(makeForm());
    return m_forms.back();
}

void ScenarioForm::bind(Field f, QWidget* w, std::function<void(const QVariant&)> show)
{
    if (w->accessibleName().isEmpty())
        w->setAccessibleName(ScenarioModel::label(f));
    m_bindings.push_back({f, w, std::move(show), w->toolTip()});
}

QWidget* ScenarioForm::editorFor(Field f) const
{
    for (const auto& b : m_bindings)
        if (b.field == f)
            return b.widget;
    return nullptr;
}

NumberField* ScenarioForm::numberFor(Field f) const
{
    return qobject_cast<NumberField*>(editorFor(f));
}

QWidget* ScenarioForm::number(Field f, const QString& tip, double step, int scaleExponent, bool optional)
{
    const bool integer = m_model->value(f).typeId() == QMetaType::Int;
    auto* n = new NumberField(integer ? NumberField::Kind::Integer : NumberField::Kind::Decimal);
    n->setToolTip(optional ? tip + tr(" (empty = none)") : tip);
    if (optional)
        n->setPlaceholderText(tr("none"));
    n->setOptional(optional);
    n->setScaleExponent(scaleExponent);
    n->setSingleStep(step);
    n->setStepMinimum(integer ? 1 : step);
    n->setCheck([path = ScenarioModel::keyPath(f)](const QVariant& v) { return scenarioValueProblem(path, v); });
    connect(n, &NumberField::valueEdited, this, [this, f](const QVariant& v) {
        if (!m_updating)
            m_model->setValue(f, v);
    });
    bind(f, n, [n](const QVariant& v) { n->showValue(v); });
    return n->withMessageLine();
}

QComboBox* ScenarioForm::enumCombo(Field f, const std::vector<std::pair<QString, int>>& items, const QString& tip,
                                   const QString& unsetLabel)
{
    auto* c = new QComboBox;
    c->setToolTip(tip);
    // Long item texts must not widen the form past the panel.
    c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    c->setMinimumContentsLength(10);
    if (!unsetLabel.isEmpty())
        c->addItem(unsetLabel, QVariant());
    for (const auto& [label, value] : items)
        c->addItem(label, value);
    connect(c, &QComboBox::currentIndexChanged, this, [this, f, c](int i) {
        if (!m_updating && i >= 0)
            m_model->setValue(f, c->itemData(i));
    });
    bind(f, c, [c](const QVariant& v) {
        const int i = (!v.isValid() || v.isNull()) ? c->findData(QVariant()) : c->findData(v.toInt());
        c->setCurrentIndex(std::max(0, i));
    });
    return c;
}

QWidget* ScenarioForm::buildModelGroup()
{
    auto* box = new QGroupBox(tr("Model"));
    auto* v = new QVBoxLayout(box);
    auto* form = newForm();

    m_presetCombo = new QComboBox;
    m_presetCombo->setEditable(true);
    m_presetCombo->setInsertPolicy(QComboBox::NoInsert);
    m_presetCombo->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    m_presetCombo->setMinimumContentsLength(12);
    m_presetCombo->setAccessibleName(tr("Model preset"));
    m_presetCombo->setToolTip(tr("Built-in model presets; type to filter"));
    m_presetCombo->addItem(tr("Custom (size, architecture or config.json)"), QString());
    for (const auto& p : gp::modelPresets())
        m_presetCombo->addItem(QStringLiteral("%1  (%2)").arg(QString::fromStdString(p.name), formatCount(p.totalParams())),
                               QString::fromStdString(p.id));
    auto* completer = new QCompleter(m_presetCombo->model(), m_presetCombo);
    completer->setCaseSensitivity(Qt::CaseInsensitive);
    completer->setFilterMode(Qt::MatchContains);
    completer->setCompletionMode(QCompleter::PopupCompletion);
    m_presetCombo->setCompleter(completer);
    connect(m_presetCombo, &QComboBox::activated, this, [this](int i) {
        const QString id = m_presetCombo->itemData(i).toString();
        if (m_updating || id.isEmpty())
            return;
        gp::ModelSpec spec;
        spec.form = gp::ModelSpec::Form::Preset;
        spec.presetId = id.toStdString();
        m_model->setModelSpec(spec);
    });
    form->addRow(tr("&Preset"), m_presetCombo);

    m_sizeEdit = new QLineEdit;
    m_sizeEdit->setPlaceholderText(tr("e.g. 13B, 70B"));
    m_sizeEdit->setAccessibleName(tr("Model size (parameters)"));
    m_sizeToolTip = tr("A size alone, the way models are named (13B = 13 billion parameters). "
                       "A typical modern decoder shape of that size is assumed and results are marked "
                       "approximate.");
    m_sizeEdit->setToolTip(m_sizeToolTip);
    // Live like the other fields: applied once typing pauses (so "1", "13" on the
    // way to "13B" are not each a model), at once on Enter or leaving the field.
    m_sizeTimer = new QTimer(this);
    m_sizeTimer->setSingleShot(true);
    m_sizeTimer->setInterval(kSizeCoalesceMs);
    connect(m_sizeTimer, &QTimer::timeout, this, &ScenarioForm::applySizeText);
    connect(m_sizeEdit, &QLineEdit::textEdited, m_sizeTimer, qOverload<>(&QTimer::start));
    connect(m_sizeEdit, &QLineEdit::editingFinished, this, &ScenarioForm::applySizeText);
    auto* importButton = new QPushButton(tr("Import config.json..."));
    importButton->setToolTip(tr("Read a Hugging Face config.json (Llama, Mistral, Mixtral, Qwen2, GPT-2, BERT, "
                                "DeepSeek-V3); you can also drop the file on the window"));
    connect(importButton, &QPushButton::clicked, this, &ScenarioForm::importRequested);
    m_familyCombo = new QComboBox;
    m_familyCombo->setAccessibleName(tr("Model family for the size"));
    m_familyCombo->setToolTip(tr("Which kind of model the size describes: decoder (GPT, Llama), encoder (BERT) "
                                 "or vision (ResNet, ViT)"));
    m_familyCombo->addItem(tr("Decoder"), static_cast<int>(gp::ModelFamily::Decoder));
    m_familyCombo->addItem(tr("Encoder"), static_cast<int>(gp::ModelFamily::Encoder));
    m_familyCombo->addItem(tr("Vision"), static_cast<int>(gp::ModelFamily::Vision));
    connect(m_familyCombo, &QComboBox::activated, this, [this] {
        if (!m_updating)
            applySizeText();
    });
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_sizeEdit, 1);
    sizeRow->addWidget(m_familyCombo);
    sizeRow->addWidget(importButton);
    // addRow(QString, QLayout*) sets no buddy, and a label without one shows its '&'.
    auto* sizeLabel = new QLabel(tr("Si&ze only"));
    sizeLabel->setBuddy(m_sizeEdit);
    form->addRow(sizeLabel, sizeRow);
    m_sizeMessage = new QLabel;
    m_sizeMessage->setWordWrap(true);
    m_sizeMessage->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(statusColor(Status::Bad).name()));
    m_sizeMessage->hide();
    form->addRow(QString(), m_sizeMessage);
    v->addLayout(form);

    m_modelInfo = new QLabel;
    m_modelInfo->setWordWrap(true);
    m_modelInfo->setTextInteractionFlags(Qt::TextSelectableByMouse);
    v->addWidget(m_modelInfo);
    m_modelProblem = new QLabel;
    m_modelProblem->setWordWrap(true);
    m_modelProblem->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(statusColor(Status::Bad).name()));
    m_modelProblem->hide();
    v->addWidget(m_modelProblem);

    // Explicit architecture: editing any field turns the model into the explicit form.
    m_archBox = new QWidget;
    auto* grid = new QGridLayout(m_archBox);
    grid->setContentsMargins(0, 0, 0, 0);
    struct ArchDef {
        const char* key;
        QString label;
        int stepMin;
        int step;
        QString tip;
    };
    const ArchDef defs[] = {
        {"layers", tr("Layers"), 1, 1, tr("Transformer layers")},
        {"hidden", tr("Hidden"), 64, 64, tr("Hidden size (model width)")},
        {"heads", tr("Heads"), 1, 1, tr("Attention heads")},
        {"kv_heads", tr("KV heads"), 1, 1, tr("Key/value heads (GQA; = heads for MHA, 1 for MQA)")},
        {"ffn_hidden", tr("FFN"), 1, 256, tr("Feed-forward inner size")},
        {"vocab", tr("Vocab"), 1, 1, tr("Vocabulary size (tokens)")},
        {"moe.experts", tr("Experts"), 0, 1, tr("Mixture-of-experts: routed experts (0 = dense)")},
        {"moe.active", tr("Active"), 0, 1, tr("Mixture-of-experts: experts per token")},
    };
    int i = 0;
    for (const auto& d : defs) {
        auto* label = new QLabel(d.label);
        auto* field = new NumberField(NumberField::Kind::Integer);
        field->setSingleStep(d.step);
        field->setStepMinimum(d.stepMin);
        field->setToolTip(d.tip);
        field->setAccessibleName(tr("Model %1").arg(d.label));
        // Ranges and rules between the numbers are the core's, reported for the
        // whole architecture; the field only refuses what is not an integer.
        field->setCheck([path = QStringLiteral("model.%1").arg(QLatin1String(d.key))](const QVariant& value) {
            if (value.typeId() == QMetaType::Int)
                return QString();
            const QString got = value.typeId() == QMetaType::Double
                                    ? QString::number(value.toDouble())
                                    : QStringLiteral("\"%1\"").arg(value.toString());
            return tr("%1: must be an integer, got %2").arg(path, got);
        });
        connect(field, &NumberField::valueEdited, this, [this] {
            if (!m_updating)
                applyArchEdit();
        });
        QWidget* cell = field->withMessageLine();
        label->setBuddy(cell);
        grid->addWidget(label, i / 2, (i % 2) * 2);
        grid->addWidget(cell, i / 2, (i % 2) * 2 + 1);
        m_archFields.push_back({field, d.key});
        ++i;
    }
    grid->setColumnStretch(1, 1);
    grid->setColumnStretch(3, 1);
    v->addWidget(m_archBox);
    bind(Field::Model, m_presetCombo, [this](const QVariant&) {
        // The model changed (an edit, undo, open): a size still being typed is moot.
        m_sizeTimer->stop();
        setSizeProblem({});
        showModel();
    });
    return box;
}

QWidget* ScenarioForm::buildWorkloadGroup()
{
    auto* box = new QGroupBox(tr("Workload"));
    auto* v = new QVBoxLayout(box);
    auto* top = newForm();

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
        if (on && !m_updating)
            m_model->setValue(Field::Mode, id);
    });
    bind(Field::Mode, modeRow, [this](const QVariant& val) {
        if (auto* b = m_modeGroup->button(val.toInt()))
            b->setChecked(true);
        m_workloadStack->setCurrentIndex(val.toInt());
    });
    top->addRow(tr("Mode"), modeRow);
    top->addRow(tr("Runtime"),
                enumCombo(Field::Runtime,
                          {{tr("Eager (plain PyTorch / HF transformers)"), static_cast<int>(gp::Runtime::Eager)},
                           {tr("Optimized (fused kernels, compiled, vLLM/TRT-LLM class)"),
                            static_cast<int>(gp::Runtime::Optimized)}},
                          tr("How the job runs; optimized runtimes reach a higher fraction of peak")));
    v->addLayout(top);

    m_workloadStack = new QStackedWidget;
    // Training page
    auto* tp = new QWidget;
    auto* tf = newForm();
    tf->setContentsMargins(0, 0, 0, 0);
    tp->setLayout(tf);
    tf->addRow(tr("Method"), enumCombo(Field::TrainMethod,
                                       {{tr("Full fine-tune / pre-train"), static_cast<int>(gp::TrainMethod::Full)},
                                        {tr("LoRA"), static_cast<int>(gp::TrainMethod::Lora)},
                                        {tr("QLoRA (4-bit base)"), static_cast<int>(gp::TrainMethod::Qlora)}},
                                       tr("Which parameters are trained")));
    m_loraBox = new QWidget;
    auto* loraLayout = new QGridLayout(m_loraBox);
    loraLayout->setContentsMargins(0, 0, 0, 0);
    loraLayout->addWidget(new QLabel(tr("Rank")), 0, 0);
    loraLayout->addWidget(number(Field::LoraRank, tr("LoRA rank r (adapter width)"), 8), 0, 1, 1, 3);
    int k = 0;
    for (const char* mod : kLoraModules) {
        auto* cb = new QCheckBox(QString::fromLatin1(mod));
        cb->setAccessibleName(tr("LoRA target %1").arg(QString::fromLatin1(mod)));
        cb->setToolTip(tr("Attach a LoRA adapter to every %1 projection").arg(QString::fromLatin1(mod)));
        connect(cb, &QCheckBox::toggled, this, [this] {
            if (m_updating)
                return;
            QStringList targets;
            for (auto* c : m_loraTargets)
                if (c->isChecked())
                    targets << c->text();
            m_model->setValue(Field::LoraTargets, targets);
        });
        loraLayout->addWidget(cb, 1 + k / 4, k % 4);
        m_loraTargets.push_back(cb);
        ++k;
    }
    bind(Field::LoraTargets, m_loraBox, [this](const QVariant& val) {
        const QStringList l = val.toStringList();
        for (auto* c : m_loraTargets)
            c->setChecked(l.contains(c->text()));
    });
    tf->addRow(tr("LoRA"), m_loraBox);
    tf->addRow(tr("Precision"),
               enumCombo(Field::TrainPrecision,
                         {{tr("FP32"), static_cast<int>(gp::TrainPrecision::FP32)},
                          {tr("TF32"), static_cast<int>(gp::TrainPrecision::TF32)},
                          {tr("AMP BF16 (fp32 master weights)"), static_cast<int>(gp::TrainPrecision::AmpBF16)},
                          {tr("AMP FP16 (fp32 master weights)"), static_cast<int>(gp::TrainPrecision::AmpFP16)},
                          {tr("Pure BF16 (weights and states)"), static_cast<int>(gp::TrainPrecision::BF16)},
                          {tr("FP8"), static_cast<int>(gp::TrainPrecision::FP8)}},
                         tr("Number formats for weights, optimizer states and matmuls")));
    tf->addRow(tr("Optimizer"), enumCombo(Field::Optimizer,
                                          {{tr("AdamW"), static_cast<int>(gp::Optimizer::AdamW)},
                                           {tr("AdamW 8-bit"), static_cast<int>(gp::Optimizer::AdamW8bit)},
                                           {tr("SGD"), static_cast<int>(gp::Optimizer::SGD)},
                                           {tr("SGD with momentum"), static_cast<int>(gp::Optimizer::SGDMomentum)}},
                                          tr("Optimizer; sets the bytes of state per trained parameter")));
    tf->addRow(ScenarioModel::label(Field::MicroBatch),
               number(Field::MicroBatch, tr("Sequences (or images) per GPU per forward pass")));
    tf->addRow(ScenarioModel::label(Field::SeqLen),
               number(Field::SeqLen, tr("Tokens per training sequence (language models)"), 256));
    tf->addRow(ScenarioModel::label(Field::TrainImageSize),
               number(Field::TrainImageSize, tr("Input image side in pixels (vision models)"), 16));
    tf->addRow(ScenarioModel::label(Field::GradAccum),
               number(Field::GradAccum, tr("Micro-batches accumulated per optimizer step")));
    tf->addRow(ScenarioModel::label(Field::Checkpointing),
               enumCombo(Field::Checkpointing,
                         {{tr("None"), static_cast<int>(gp::Checkpointing::None)},
                          {tr("Selective (recompute attention)"), static_cast<int>(gp::Checkpointing::Selective)},
                          {tr("Full (recompute each layer)"), static_cast<int>(gp::Checkpointing::Full)}},
                         tr("Trade recompute time for activation memory")));
    tf->addRow(tr("Dataset (M tokens)"),
               number(Field::DatasetTokens, tr("Training tokens per epoch, in millions"), 100, 6, true));
    tf->addRow(tr("Dataset (K samples)"),
               number(Field::DatasetSamples, tr("Training samples (images) per epoch, in thousands"), 100, 3,
                      true));
    tf->addRow(ScenarioModel::label(Field::Epochs), number(Field::Epochs, tr("Passes over the dataset"), 0.5));
    tf->addRow(ScenarioModel::label(Field::DeadlineHours),
               number(Field::DeadlineHours, tr("Target: finish within this many hours"), 1, 0, true));
    tf->addRow(ScenarioModel::label(Field::BudgetUsd),
               number(Field::BudgetUsd, tr("Target: total cost at most this many USD"), 1000, 0, true));
    m_workloadStack->addWidget(tp);

    // Inference page
    auto* ip = new QWidget;
    auto* inf = newForm();
    inf->setContentsMargins(0, 0, 0, 0);
    ip->setLayout(inf);
    const std::vector<std::pair<QString, int>> inferPrecisions = {
        {tr("FP32"), static_cast<int>(gp::InferPrecision::FP32)}, {tr("FP16"), static_cast<int>(gp::InferPrecision::FP16)},
        {tr("BF16"), static_cast<int>(gp::InferPrecision::BF16)}, {tr("FP8"), static_cast<int>(gp::InferPrecision::FP8)},
        {tr("INT8"), static_cast<int>(gp::InferPrecision::INT8)}, {tr("INT4 (weight-only)"), static_cast<int>(gp::InferPrecision::INT4)}};
    inf->addRow(ScenarioModel::label(Field::InferPrecision),
                enumCombo(Field::InferPrecision, inferPrecisions, tr("Weight format served")));
    inf->addRow(ScenarioModel::label(Field::KvPrecision),
                enumCombo(Field::KvPrecision, inferPrecisions, tr("KV cache element format"),
                          tr("Same as weights")));
    inf->addRow(ScenarioModel::label(Field::Batch),
                number(Field::Batch, tr("Concurrent sequences (or images per batch)")));
    inf->addRow(ScenarioModel::label(Field::PromptTokens),
                number(Field::PromptTokens, tr("Prompt length in tokens"), 128));
    inf->addRow(ScenarioModel::label(Field::OutputTokens),
                number(Field::OutputTokens, tr("Generated tokens per request"), 64));
    inf->addRow(ScenarioModel::label(Field::InferImageSize),
                number(Field::InferImageSize, tr("Input image side in pixels (vision models)"), 16));
    inf->addRow(ScenarioModel::label(Field::TtftMs),
                number(Field::TtftMs, tr("Target: time to first token at most (ms)"), 50, 0, true));
    inf->addRow(ScenarioModel::label(Field::TpotMs),
                number(Field::TpotMs, tr("Target: time per output token at most (ms)"), 5, 0, true));
    inf->addRow(ScenarioModel::label(Field::RequestsPerS),
                number(Field::RequestsPerS, tr("Target: requests per second to serve"), 1, 0, true));
    m_workloadStack->addWidget(ip);
    v->addWidget(m_workloadStack);
    return box;
}

QWidget* ScenarioForm::buildHardwareGroup()
{
    auto* box = new QGroupBox(tr("Hardware"));
    auto* v = new QVBoxLayout(box);
    auto* filters = new QHBoxLayout;
    m_vendorFilter = new QComboBox;
    m_vendorFilter->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_vendorFilter->setAccessibleName(tr("Vendor filter"));
    m_vendorFilter->setToolTip(tr("Show only this vendor's GPUs in the list"));
    m_tierFilter = new QComboBox;
    m_tierFilter->setAccessibleName(tr("Tier filter"));
    m_tierFilter->setToolTip(tr("Show only this market tier in the list"));
    m_tierFilter->addItem(tr("All tiers"), -1);
    for (const auto t : {gp::Tier::Consumer, gp::Tier::Workstation, gp::Tier::InferenceDatacenter,
                         gp::Tier::TrainingDatacenter, gp::Tier::Frontier})
        m_tierFilter->addItem(QString::fromUtf8(gp::tierLabel(t).data(), static_cast<qsizetype>(gp::tierLabel(t).size())),
                              static_cast<int>(t));
    m_gpuSearch = new QLineEdit;
    m_gpuSearch->setPlaceholderText(tr("Search GPUs"));
    m_gpuSearch->setAccessibleName(tr("Search GPUs"));
    m_gpuSearch->setClearButtonEnabled(true);
    filters->addWidget(m_vendorFilter);
    filters->addWidget(m_tierFilter);
    filters->addWidget(m_gpuSearch, 1);
    v->addLayout(filters);
    connect(m_vendorFilter, &QComboBox::currentIndexChanged, this, &ScenarioForm::refreshGpuFilter);
    connect(m_tierFilter, &QComboBox::currentIndexChanged, this, &ScenarioForm::refreshGpuFilter);
    connect(m_gpuSearch, &QLineEdit::textChanged, this, &ScenarioForm::refreshGpuFilter);

    m_gpuList = new QListWidget;
    m_gpuList->setAccessibleName(tr("GPUs to consider"));
    m_gpuList->setToolTip(tr("Tick the GPUs to compare; none ticked = the whole catalog"));
    m_gpuList->setMinimumHeight(150);
    m_gpuList->setUniformItemSizes(true);
    connect(m_gpuList, &QListWidget::itemChanged, this, [this] {
        if (!m_updating)
            gpuItemChanged();
    });
    v->addWidget(m_gpuList);
    bind(Field::Gpus, m_gpuList, [this](const QVariant& val) {
        const QStringList ids = val.toStringList();
        const QSet<QString> set(ids.begin(), ids.end());
        for (int i = 0; i < m_gpuList->count(); ++i) {
            auto* item = m_gpuList->item(i);
            item->setCheckState(set.contains(item->data(kIdRole).toString()) ? Qt::Checked : Qt::Unchecked);
        }
        m_gpuNote->setText(ids.isEmpty() ? tr("None ticked: every GPU in the catalog (%1) is considered.").arg(m_catalogSize)
                                         : tr("%1 of %2 GPUs ticked.").arg(ids.size()).arg(m_catalogSize));
    });
    auto* buttons = new QHBoxLayout;
    m_gpuNote = new QLabel;
    m_gpuNote->setWordWrap(true);
    auto* tickShown = new QPushButton(tr("Tick shown"));
    tickShown->setToolTip(tr("Tick every GPU the filters show"));
    auto* clear = new QPushButton(tr("Clear"));
    clear->setToolTip(tr("Untick all (= consider the whole catalog)"));
    connect(tickShown, &QPushButton::clicked, this, [this] {
        QStringList ids = m_model->value(Field::Gpus).toStringList();
        QSet<QString> ticked(ids.begin(), ids.end()); // a user catalog can hold a thousand GPUs
        for (int i = 0; i < m_gpuList->count(); ++i) {
            auto* item = m_gpuList->item(i);
            const QString id = item->data(kIdRole).toString();
            if (!item->isHidden() && !ticked.contains(id)) {
                ids << id;
                ticked.insert(id);
            }
        }
        m_model->setGpus(ids);
    });
    connect(clear, &QPushButton::clicked, this, [this] { m_model->setGpus({}); });
    buttons->addWidget(m_gpuNote, 1);
    buttons->addWidget(tickShown);
    buttons->addWidget(clear);
    v->addLayout(buttons);

    auto* form = newForm();
    form->addRow(ScenarioModel::label(Field::Count), number(Field::Count, tr("GPUs in one job")));
    auto* par = new QHBoxLayout;
    auto* tpSpin = number(Field::Tp, tr("Tensor-parallel degree (splits each layer)"));
    auto* ppSpin = number(Field::Pp, tr("Pipeline-parallel degree (splits the layer stack)"));
    auto* zero = enumCombo(Field::Zero,
                           {{tr("ZeRO off"), 0}, {tr("ZeRO-1 (states)"), 1}, {tr("ZeRO-2 (+ grads)"), 2},
                            {tr("ZeRO-3 / FSDP (+ weights)"), 3}},
                           tr("Shard optimizer states / gradients / weights across data-parallel GPUs"));
    par->addWidget(new QLabel(tr("TP")));
    par->addWidget(tpSpin);
    par->addWidget(new QLabel(tr("PP")));
    par->addWidget(ppSpin);
    par->addWidget(zero, 1);
    form->addRow(tr("Parallelism"), par);
    auto* maxCount = number(Field::MaxCount,
                            tr("The planner tries GPU counts in powers of two up to this (consumer and "
                                "workstation cards: one 8-GPU box at most)"));
    form->addRow(ScenarioModel::label(Field::MaxCount), maxCount);
    auto* net = number(Field::NetworkGbps,
                       tr("Bandwidth between nodes per GPU in Gbit/s (400 = NDR InfiniBand, 100 = typical "
                          "Ethernet); data-parallel and FSDP traffic beyond one node crosses it"),
                       100);
    form->addRow(ScenarioModel::label(Field::NetworkGbps), net);
    v->addLayout(form);
    return box;
}

QWidget* ScenarioForm::buildPricingGroup()
{
    auto* box = new QGroupBox(tr("Pricing"));
    auto* form = newForm();
    box->setLayout(form);
    form->addRow(ScenarioModel::label(Field::PricingModel),
                 enumCombo(Field::PricingModel,
                           {{tr("Rent on demand"), static_cast<int>(gp::PricingModel::OnDemand)},
                            {tr("Rent spot / preemptible"), static_cast<int>(gp::PricingModel::Spot)},
                            {tr("Rent reserved"), static_cast<int>(gp::PricingModel::Reserved)},
                            {tr("Buy (amortized + power)"), static_cast<int>(gp::PricingModel::Purchase)}},
                           tr("How the GPU hours are paid for")));
    auto* util = number(Field::Utilization, tr("Fraction of paid hours doing useful work (0-1]"), 0.05);
    form->addRow(ScenarioModel::label(Field::Utilization), util);
    auto* kwh = number(Field::ElectricityUsdPerKwh, tr("Electricity price, USD per kWh (purchase)"), 0.01);
    form->addRow(ScenarioModel::label(Field::ElectricityUsdPerKwh), kwh);
    auto* pue = number(Field::Pue, tr("Power usage effectiveness of the facility (purchase)"), 0.05);
    form->addRow(ScenarioModel::label(Field::Pue), pue);
    form->addRow(ScenarioModel::label(Field::AmortizationYears),
                 number(Field::AmortizationYears, tr("Years to write the purchase off over"), 0.5));
    auto* hosting = number(Field::HostingUsdPerGpuYear,
                           tr("Owning: rack space, networking and a share of staff per GPU per year, USD "
                              "(the rent-vs-buy break-even includes it)"),
                           500);
    form->addRow(ScenarioModel::label(Field::HostingUsdPerGpuYear), hosting);
    return box;
}

void ScenarioForm::setCatalog(const gp::Catalog& catalog)
{
    m_updating = true;
    const QString vendor = m_vendorFilter->currentData().toString();
    m_vendorFilter->clear();
    m_vendorFilter->addItem(tr("All vendors"), QString());
    QStringList vendors;
    for (const auto& g : catalog.gpus())
        if (!vendors.contains(QString::fromStdString(g.vendor)))
            vendors << QString::fromStdString(g.vendor);
    vendors.sort();
    for (const auto& v : vendors)
        m_vendorFilter->addItem(v, v);
    m_vendorFilter->setCurrentIndex(std::max(0, m_vendorFilter->findData(vendor)));

    m_gpuList->clear();
    for (const auto& g : catalog.gpus()) {
        const auto tier = gp::tierLabel(g.tier);
        auto* item = new QListWidgetItem(QStringLiteral("%1 — %2 GB, %3%4")
                                             .arg(QString::fromStdString(g.name), formatNumber(g.memoryGb))
                                             .arg(QString::fromUtf8(tier.data(), static_cast<qsizetype>(tier.size())))
                                             .arg(g.userDefined ? tr(" (edited)") : QString()));
        item->setData(kIdRole, QString::fromStdString(g.id));
        item->setData(Qt::UserRole + 1, QString::fromStdString(g.vendor));
        item->setData(Qt::UserRole + 2, static_cast<int>(g.tier));
        item->setFlags(Qt::ItemIsEnabled | Qt::ItemIsUserCheckable | Qt::ItemIsSelectable);
        item->setCheckState(Qt::Unchecked);
        item->setToolTip(tr("%1 (%2)\n%3 GB %4, %5 GB/s\nBF16 %6 TFLOPS dense\n%7/h typical rental (seen %8)")
                             .arg(QString::fromStdString(g.name), QString::fromStdString(g.id), formatNumber(g.memoryGb),
                                  QString::fromStdString(g.memoryType), formatNumber(g.bandwidthGbps),
                                  formatNumber(g.bf16Tflops), formatMoney(g.pricePerHour.typical),
                                  QString::fromStdString(g.pricePerHour.seen)));
        m_gpuList->addItem(item);
    }
    m_catalogSize = static_cast<int>(catalog.gpus().size());
    m_updating = false;
    showField(Field::Gpus);
    refreshGpuFilter();
}

void ScenarioForm::refreshGpuFilter()
{
    const QString vendor = m_vendorFilter->currentData().toString();
    const int tier = m_tierFilter->currentData().toInt();
    const QString text = m_gpuSearch->text().trimmed();
    for (int i = 0; i < m_gpuList->count(); ++i) {
        auto* item = m_gpuList->item(i);
        const bool show = (vendor.isEmpty() || item->data(Qt::UserRole + 1).toString() == vendor) &&
                          (tier < 0 || item->data(Qt::UserRole + 2).toInt() == tier) &&
                          (text.isEmpty() || item->text().contains(text, Qt::CaseInsensitive) ||
                           item->data(kIdRole).toString().contains(text, Qt::CaseInsensitive));
        item->setHidden(!show);
    }
}

void ScenarioForm::gpuItemChanged()
{
    QStringList ids;
    for (int i = 0; i < m_gpuList->count(); ++i)
        if (m_gpuList->item(i)->checkState() == Qt::Checked)
            ids << m_gpuList->item(i)->data(kIdRole).toString();
    m_model->setGpus(ids);
}

QString ScenarioForm::sizeProblem() const
{
    return m_sizeMessage->text();
}

void ScenarioForm::setSizeProblem(const QString& message)
{
    m_sizeEdit->setStyleSheet(message.isEmpty() ? QString() : invalidStyle(m_sizeEdit));
    m_sizeEdit->setToolTip(message.isEmpty() ? m_sizeToolTip : message);
    m_sizeEdit->setAccessibleDescription(message);
    m_sizeMessage->setText(message);
    m_sizeMessage->setVisible(!message.isEmpty());
}

void ScenarioForm::applySizeText()
{
    m_sizeTimer->stop();
    const QString text = m_sizeEdit->text().trimmed();
    if (text.isEmpty()) {
        setSizeProblem({});
        return;
    }
    const auto params = parseParamCount(text);
    // The core's own limits and wording; what the user typed stays in the field.
    QString problem = scenarioValueProblem(QStringLiteral("model.params"), params ? QVariant(*params) : QVariant(text));
    if (!params)
        problem += tr(" (write e.g. 13B, 70B, 1.5T)");
    setSizeProblem(problem);
    if (!problem.isEmpty())
        return;
    const auto family = static_cast<gp::ModelFamily>(m_familyCombo->currentData().toInt());
    const auto& cur = m_model->scenario().modelSpec;
    if (cur.form == gp::ModelSpec::Form::Params && cur.params == *params &&
        cur.family.value_or(gp::ModelFamily::Decoder) == family)
        return;
    gp::ModelSpec spec;
    spec.form = gp::ModelSpec::Form::Params;
    spec.params = *params;
    // Decoder is the format's default: leave it unset so saved files stay as before.
    if (family != gp::ModelFamily::Decoder)
        spec.family = family;
    m_model->setModelSpec(spec);
}

void ScenarioForm::applyArchEdit()
{
    const gp::ModelArch& m = m_model->scenario().model;
    nlohmann::json j = nlohmann::json::parse(m_model->scenario().modelSpec.form == gp::ModelSpec::Form::Explicit
                                                 ? m_model->scenario().modelSpec.jsonText
                                                 : explicitJsonFor(m),
                                             nullptr, false);
    if (j.is_discarded() || !j.is_object())
        j = nlohmann::json::parse(explicitJsonFor(m));
    for (const auto& a : m_archFields) {
        const std::string key = a.key;
        const auto shown = a.field->value();
        if (!shown || std::floor(*shown) != *shown || std::abs(*shown) > INT_MAX)
            return; // not an integer: that field says so, and the model keeps its last good shape
        const auto v = static_cast<int>(*shown);
        if (key.rfind("moe.", 0) == 0) {
            const std::string sub = key.substr(4);
            if (!j.contains("moe") || !j["moe"].is_object())
                j["moe"] = nlohmann::json::object();
            j["moe"][sub] = v;
        } else {
            j[key] = v;
        }
    }
    if (j.contains("moe") && j["moe"].value("experts", 0) == 0)
        j.erase("moe");
    else if (j.contains("moe") && !j["moe"].contains("expert_ffn_hidden"))
        j["moe"]["expert_ffn_hidden"] = j.value("ffn_hidden", 0);
    // A changed head count invalidates a head_dim derived from the old one.
    if (j.contains("head_dim") && j["hidden"].get<int>() != m.hidden)
        j.erase("head_dim");
    if (j.contains("head_dim") && j["heads"].get<int>() != m.heads)
        j.erase("head_dim");
    gp::ModelSpec spec;
    spec.form = gp::ModelSpec::Form::Explicit;
    spec.jsonText = j.dump(2);
    m_model->setModelSpec(spec);
}

void ScenarioForm::importHfConfig(const QString& path)
{
    QString error;
    const auto spec = hfConfigSpecFromFile(path, &error);
    if (!spec) {
        emit errorOccurred(tr("Cannot import config.json"), error);
        return;
    }
    m_model->setModelSpec(*spec);
}

void ScenarioForm::showModel()
{
    // Called from showProblems() too, outside showField's guard: setting the
    // architecture spins must not read back as a user edit (that turned a
    // size-only model into an explicit one whenever the problems changed).
    const bool wasUpdating = m_updating;
    m_updating = true;
    const auto& s = m_model->scenario();
    const auto& spec = s.modelSpec;
    const QString modelProblems = m_model->problemsFor(Field::Model);
    const int presetIndex = spec.form == gp::ModelSpec::Form::Preset
                                ? m_presetCombo->findData(QString::fromStdString(spec.presetId))
                                : 0;
    m_presetCombo->setCurrentIndex(std::max(0, presetIndex));
    // A size being typed (waiting for the pause, or marked wrong) keeps its text.
    const bool sizePending = m_sizeTimer->isActive() || !sizeProblem().isEmpty();
    if (spec.form == gp::ModelSpec::Form::Params) {
        if (!sizePending && parseParamCount(m_sizeEdit->text()) != std::optional<double>(spec.params))
            m_sizeEdit->setText(formatCount(spec.params));
        const QSignalBlocker block(m_familyCombo);
        m_familyCombo->setCurrentIndex(
            std::max(0, m_familyCombo->findData(static_cast<int>(spec.family.value_or(gp::ModelFamily::Decoder)))));
    } else if (!sizePending) {
        m_sizeEdit->clear();
    }
    // The spins show the resolved model; while the spec has a problem they keep
    // what the user typed.
    if (modelProblems.isEmpty()) {
        const gp::ModelArch& m = s.model;
        for (const auto& a : m_archFields) {
            const std::string key = a.key;
            long long v = 0;
            if (key == "layers") v = m.layers;
            else if (key == "hidden") v = m.hidden;
            else if (key == "heads") v = m.heads;
            else if (key == "kv_heads") v = m.kvHeads;
            else if (key == "ffn_hidden") v = m.ffnHidden;
            else if (key == "vocab") v = m.vocab;
            else if (key == "moe.experts") v = m.moe.experts;
            else if (key == "moe.active") v = m.moe.active;
            a.field->showValue(QVariant(v));
        }
        m_archBox->setEnabled(m.isLanguageModel());
        m_archBox->setToolTip(m.isLanguageModel() ? QString()
                                                  : tr("Vision models are described by measured totals, not layers"));
    }
    QString source;
    switch (spec.form) {
    case gp::ModelSpec::Form::Preset: source = tr("built-in preset"); break;
    case gp::ModelSpec::Form::Explicit: source = tr("explicit architecture"); break;
    case gp::ModelSpec::Form::HfConfig: source = tr("imported config.json"); break;
    case gp::ModelSpec::Form::Params: source = tr("size only"); break;
    }
    m_modelInfo->setText(QStringLiteral("%1 <i>(%2)</i>").arg(htmlEscape(describeModel(s.model)), source));
    m_modelProblem->setText(modelProblems);
    m_modelProblem->setVisible(!modelProblems.isEmpty());
    m_updating = wasUpdating;
}

void ScenarioForm::showField(Field f)
{
    m_updating = true;
    for (const auto& b : m_bindings)
        if (b.field == f) {
            const QSignalBlocker block(b.widget);
            b.show(m_model->value(f));
        }
    m_updating = false;
    if (f == Field::Model || f == Field::TrainMethod || f == Field::Mode)
        updateEnabledState();
    if (f == Field::InferPrecision)
        updateKvSameLabel();
}

void ScenarioForm::showAll()
{
    m_updating = true;
    for (const auto& b : m_bindings) {
        const QSignalBlocker block(b.widget);
        b.show(m_model->value(b.field));
    }
    m_updating = false;
    updateEnabledState();
    updateKvSameLabel();
    showProblems();
}

void ScenarioForm::updateKvSameLabel()
{
    auto* kv = qobject_cast<QComboBox*>(editorFor(Field::KvPrecision));
    const int same = kv ? kv->findData(QVariant()) : -1;
    if (same < 0)
        return;
    // The core's default: the weights' format, except INT4 weights keep an FP16 cache.
    const auto weights = m_model->scenario().inference.precision;
    const auto kvFormat = weights == gp::InferPrecision::INT4 ? gp::InferPrecision::FP16 : weights;
    auto* precision = qobject_cast<QComboBox*>(editorFor(Field::InferPrecision));
    QString name = precision ? precision->itemText(precision->findData(static_cast<int>(kvFormat))) : QString();
    kv->setItemText(same, tr("Same as weights (%1)").arg(name));
}

void ScenarioForm::updateEnabledState()
{
    const auto& s = m_model->scenario();
    const bool lm = s.model.isLanguageModel();
    m_loraBox->setEnabled(s.training.method != gp::TrainMethod::Full);
    for (const Field f : {Field::SeqLen, Field::PromptTokens, Field::OutputTokens, Field::TtftMs, Field::TpotMs})
        if (auto* w = editorFor(f))
            w->setEnabled(lm);
    for (const Field f : {Field::TrainImageSize, Field::InferImageSize})
        if (auto* w = editorFor(f))
            w->setEnabled(!lm);
}

void ScenarioForm::showProblems()
{
    for (const auto& b : m_bindings) {
        const QString msg = m_model->problemsFor(b.field);
        if (auto* n = qobject_cast<NumberField*>(b.widget)) {
            n->setModelProblem(msg);
            continue;
        }
        QWidget* w = b.field == Field::Model ? static_cast<QWidget*>(m_archBox) : b.widget;
        if (msg.isEmpty()) {
            w->setStyleSheet(QString());
            w->setToolTip(b.field == Field::Model ? QString() : b.baseToolTip);
        } else {
            w->setStyleSheet(b.field == Field::Model ? QStringLiteral("QLineEdit { border: 2px solid %1; }")
                                                           .arg(statusColor(Status::Bad).name())
                                                     : invalidStyle(w));
            w->setToolTip(msg);
        }
    }
    showModel();
}

} // namespace gp::ui
