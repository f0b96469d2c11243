#include "scenarioform.h"

#include "modelspecs.h"
#include "numberfield.h"

#include "form/formbinder.h"
#include "form/hardwaregroup.h"
#include "form/modelgroup.h"
#include "form/pricinggroup.h"
#include "form/workloadgroup.h"

#include <QFormLayout>
#include <QLineEdit>
#include <QVBoxLayout>

namespace gp::ui {

using Field = ScenarioModel::Field;

static_assert(ScenarioForm::kSizeCoalesceMs == ModelGroup::kSizeCoalesceMs);

ScenarioForm::ScenarioForm(ScenarioModel* model, QWidget* parent)
    : QScrollArea(parent)
    , m_model(model)
    , m_binder(new FormBinder(model, this))
{
    setWidgetResizable(true);
    setFrameShape(QFrame::NoFrame);
    setHorizontalScrollBarPolicy(Qt::ScrollBarAsNeeded);
    auto* content = new QWidget;
    auto* layout = new QVBoxLayout(content);

    auto* nameForm = m_binder->newForm();
    auto* name = new QLineEdit;
    name->setAccessibleName(ScenarioModel::label(Field::Name));
    name->setToolTip(tr("A name for this what-if; it titles the report"));
    connect(name, &QLineEdit::textEdited, this, [this](const QString& t) {
        if (!m_binder->isUpdating())
            m_model->setValue(Field::Name, t);
    });
    m_binder->bind(Field::Name, name, [name](const QVariant& v) {
        if (name->text() != v.toString()) {
            name->setText(v.toString());
            name->setCursorPosition(0); // show a long name's beginning, not its end
        }
    });
    nameForm->addRow(tr("&Name"), name);
    layout->addLayout(nameForm);

    m_modelGroup = new ModelGroup(m_binder);
    connect(m_modelGroup, &ModelGroup::importRequested, this, &ScenarioForm::importRequested);
    layout->addWidget(m_modelGroup);
    m_workloadGroup = new WorkloadGroup(m_binder);
    layout->addWidget(m_workloadGroup);
    m_hardwareGroup = new HardwareGroup(m_binder);
    layout->addWidget(m_hardwareGroup);
    layout->addWidget(new PricingGroup(m_binder));
    layout->addStretch(1);
    m_binder->alignLabelColumns();
    setWidget(content);

    connect(m_model, &ScenarioModel::fieldChanged, this, &ScenarioForm::showField);
    connect(m_model, &ScenarioModel::scenarioReset, this, &ScenarioForm::showAll);
    connect(m_model, &ScenarioModel::problemsChanged, this, &ScenarioForm::showProblems);
    showAll();
}

ScenarioForm::~ScenarioForm() = default;

QWidget* ScenarioForm::editorFor(Field f) const
{
    return m_binder->editorFor(f);
}

NumberField* ScenarioForm::numberFor(Field f) const
{
    return qobject_cast<NumberField*>(editorFor(f));
}

QStringList ScenarioForm::refusedInputs() const
{
    QStringList out;
    for (int i = 0; i < static_cast<int>(Field::FieldCount); ++i) {
        const NumberField* n = numberFor(static_cast<Field>(i));
        if (n && !n->inputProblem().isEmpty())
            out << tr("%1 (typed \u201c%2\u201d)").arg(n->inputProblem(), n->text().trimmed());
    }
    if (!sizeProblem().isEmpty())
        out << tr("Model size: %1 (typed \u201c%2\u201d)").arg(sizeProblem(), sizeEdit()->text().trimmed());
    return out;
}

QLineEdit* ScenarioForm::sizeEdit() const
{
    return m_modelGroup->sizeEdit();
}

QString ScenarioForm::sizeProblem() const
{
    return m_modelGroup->sizeProblem();
}

QComboBox* ScenarioForm::familyCombo() const
{
    return m_modelGroup->familyCombo();
}

QComboBox* ScenarioForm::presetCombo() const
{
    return m_modelGroup->presetCombo();
}

QListWidget* ScenarioForm::gpuList() const
{
    return m_hardwareGroup->gpuList();
}

void ScenarioForm::setCatalog(const gp::Catalog& catalog)
{
    m_hardwareGroup->setCatalog(catalog);
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

void ScenarioForm::showField(Field f)
{
    m_binder->showField(f);
    if (f == Field::Model || f == Field::TrainMethod || f == Field::Mode)
        m_workloadGroup->updateEnabledState();
    if (f == Field::InferPrecision)
        m_workloadGroup->updateKvSameLabel();
}

void ScenarioForm::showAll()
{
    m_binder->showAll();
    m_workloadGroup->updateEnabledState();
    m_workloadGroup->updateKvSameLabel();
    showProblems();
}

void ScenarioForm::showProblems()
{
    m_binder->showProblems();
    m_modelGroup->showModel();
}

} // namespace gp::ui
