#include "modelgroup.h"

#include "formbinder.h"

#include "ui/format.h"
#include "ui/modelspecs.h"
#include "ui/numberfield.h"
#include "ui/palette.h"
#include "ui/valuecheck.h"

#include "core/model/model.h"
#include "core/model/presets.h"

#include <QComboBox>
#include <QCompleter>
#include <QFormLayout>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSignalBlocker>
#include <QTimer>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

#include <climits>
#include <cmath>

namespace gp::ui {

using Field = ScenarioModel::Field;

ModelGroup::ModelGroup(FormBinder* binder, QWidget* parent)
    : QGroupBox(tr("Model"), parent)
    , m_binder(binder)
    , m_model(binder->model())
{
    auto* v = new QVBoxLayout(this);
    auto* form = m_binder->newForm();

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
        if (m_binder->isUpdating() || id.isEmpty())
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
    connect(m_sizeTimer, &QTimer::timeout, this, &ModelGroup::applySizeText);
    connect(m_sizeEdit, &QLineEdit::textEdited, m_sizeTimer, qOverload<>(&QTimer::start));
    connect(m_sizeEdit, &QLineEdit::editingFinished, this, &ModelGroup::applySizeText);
    auto* importButton = new QPushButton(tr("Import config.json..."));
    importButton->setToolTip(tr("Read a Hugging Face config.json (Llama 3/4, Mistral, Mixtral, Qwen2/3, Qwen3-Next, "
                                "Gemma 2/3, gpt-oss, DeepSeek-V3/R1, Kimi K2, Phi-4, GLM-4.5, OLMo 2, Granite 4.0-H, "
                                "Nemotron-H, GPT-2, BERT); you can also drop the file on the window"));
    connect(importButton, &QPushButton::clicked, this, &ModelGroup::importRequested);
    m_familyCombo = new QComboBox;
    m_familyCombo->setAccessibleName(tr("Model family for the size"));
    m_familyCombo->setToolTip(tr("Which kind of model the size describes: decoder (GPT, Llama), encoder (BERT) "
                                 "or vision (ResNet, ViT)"));
    m_familyCombo->addItem(tr("Decoder"), static_cast<int>(gp::ModelFamily::Decoder));
    m_familyCombo->addItem(tr("Encoder"), static_cast<int>(gp::ModelFamily::Encoder));
    m_familyCombo->addItem(tr("Vision"), static_cast<int>(gp::ModelFamily::Vision));
    connect(m_familyCombo, &QComboBox::activated, this, [this] {
        if (!m_binder->isUpdating())
            applySizeText();
    });
    auto* sizeRow = new QHBoxLayout;
    sizeRow->addWidget(m_sizeEdit, 1);
    sizeRow->addWidget(m_familyCombo);
    // addRow(QString, QLayout*) sets no buddy, and a label without one shows its '&'.
    auto* sizeLabel = new QLabel(tr("Si&ze only"));
    sizeLabel->setBuddy(m_sizeEdit);
    form->addRow(sizeLabel, sizeRow);
    // Its own row: beside the size entry its text was clipped in a narrow form.
    form->addRow(QString(), importButton);
    m_sizeMessage = new QLabel;
    m_sizeMessage->setWordWrap(true);
    m_sizeMessage->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(statusColor(Status::Bad).name()));
    m_sizeMessage->hide();
    form->addRow(QString(), m_sizeMessage);
    v->addLayout(form);

    m_modelInfo = new QLabel;
    m_modelInfo->setObjectName(QStringLiteral("modelInfo"));
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
        {"sliding_layers", tr("Sliding layers"), 0, 1,
         tr("Layers that attend within a window (sliding or chunked attention); the others attend to everything")},
        {"sliding_window", tr("Window"), 0, 128, tr("Tokens a sliding layer attends to (chunked attention: the chunk)")},
        {"linear_layers", tr("Linear layers"), 0, 1,
         tr("Linear-attention / Mamba layers: a fixed state per sequence instead of a KV cache")},
        {"linear_state_bytes", tr("State bytes"), 0, 1024, tr("Recurrent state of one linear layer per sequence (bf16 bytes)")},
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
            if (!m_binder->isUpdating())
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
    m_binder->bind(Field::Model, m_presetCombo, [this](const QVariant&) {
        // The model changed (an edit, undo, open): a size still being typed is moot.
        m_sizeTimer->stop();
        setSizeProblem({});
        showModel();
    }, [this](const QString& msg) {
        // The model's problems are the architecture's: its fields are framed.
        m_archBox->setStyleSheet(msg.isEmpty() ? QString()
                                               : QStringLiteral("QLineEdit { border: 2px solid %1; }")
                                                     .arg(statusColor(Status::Bad).name()));
        m_archBox->setToolTip(msg);
    });
}

QString ModelGroup::sizeProblem() const
{
    return m_sizeMessage->text();
}

void ModelGroup::setSizeProblem(const QString& message)
{
    m_sizeEdit->setStyleSheet(message.isEmpty() ? QString() : FormBinder::invalidStyle(m_sizeEdit));
    m_sizeEdit->setToolTip(message.isEmpty() ? m_sizeToolTip : message);
    m_sizeEdit->setAccessibleDescription(message);
    m_sizeMessage->setText(message);
    m_sizeMessage->setVisible(!message.isEmpty());
}

void ModelGroup::applySizeText()
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

void ModelGroup::applyArchEdit()
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
    // No windowed or linear layers: the keys go (the form refuses a zero window or state).
    if (j.value("sliding_layers", 0) == 0 || j.value("sliding_window", 0) == 0) {
        j.erase("sliding_layers");
        j.erase("sliding_window");
    }
    if (j.value("linear_layers", 0) == 0 || j.value("linear_state_bytes", 0) == 0) {
        j.erase("linear_layers");
        j.erase("linear_state_bytes");
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

void ModelGroup::showModel()
{
    // Called from showProblems() too, outside showField's guard: setting the
    // architecture spins must not read back as a user edit (that turned a
    // size-only model into an explicit one whenever the problems changed).
    const bool wasUpdating = m_binder->isUpdating();
    m_binder->setUpdating(true);
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
            else if (key == "sliding_layers") v = m.slidingLayers + m.chunkedLayers;
            else if (key == "sliding_window") v = m.slidingLayers > 0 ? m.slidingWindow : m.chunkSize;
            else if (key == "linear_layers") v = m.linearLayers;
            else if (key == "linear_state_bytes") v = static_cast<long long>(m.linearStateBytes);
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
    QString info = QStringLiteral("%1 <i>(%2)</i>").arg(htmlEscape(describeModel(s.model)), source);
    // What the config.json reader assumed or left unread, said under the line.
    for (const auto& note : s.model.readNotes)
        info += QStringLiteral("<br><small>%1</small>").arg(htmlEscape(QString::fromStdString(note)));
    m_modelInfo->setText(info);
    m_modelProblem->setText(modelProblems);
    m_modelProblem->setVisible(!modelProblems.isEmpty());
    m_binder->setUpdating(wasUpdating);
}

} // namespace gp::ui
