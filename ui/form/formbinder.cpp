#include "formbinder.h"

#include "ui/numberfield.h"
#include "ui/palette.h"
#include "ui/valuecheck.h"

#include <QComboBox>
#include <QFormLayout>
#include <QLabel>
#include <QSignalBlocker>

namespace gp::ui {

using Field = ScenarioModel::Field;

FormBinder::FormBinder(ScenarioModel* model, QObject* parent)
    : QObject(parent)
    , m_model(model)
{
}

QString FormBinder::invalidStyle(const QWidget* w)
{
    // A mid-tone red frame reads on light and dark palettes.
    return QStringLiteral("%1 { border: 2px solid %2; border-radius: 3px; }")
        .arg(QString::fromLatin1(w->metaObject()->className()), statusColor(Status::Bad).name());
}

QFormLayout* FormBinder::newForm()
{
    auto* f = new QFormLayout;
    f->setRowWrapPolicy(QFormLayout::DontWrapRows);
    f->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    f->setLabelAlignment(Qt::AlignRight | Qt::AlignVCenter);
    m_forms.push_back(f);
    return f;
}

// Separate QFormLayouts size their label columns independently (Mode/Runtime sat
// left of the training fields below them); give every label the widest width.
void FormBinder::alignLabelColumns()
{
    std::vector<QLabel*> labels;
    int width = 0;
    for (auto* f : m_forms)
        for (int r = 0; r < f->rowCount(); ++r)
            if (auto* item = f->itemAt(r, QFormLayout::LabelRole))
                if (auto* l = qobject_cast<QLabel*>(item->widget())) {
                    labels.push_back(l);
                    width = std::max(width, l->sizeHint().width());
                }
    // A long label wraps instead of widening every row (the form must fit a
    // narrow window: 1024x600, or 1.5x scaling).
    constexpr int kMaxLabelWidth = 120;
    width = std::min(width, kMaxLabelWidth);
    for (auto* l : labels) {
        if (l->sizeHint().width() > width)
            l->setWordWrap(true);
        l->setMinimumWidth(width);
        l->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
    }
}

void FormBinder::bind(Field f, QWidget* w, Show show, ShowProblem showProblem)
{
    if (w->accessibleName().isEmpty())
        w->setAccessibleName(ScenarioModel::label(f));
    m_bindings.push_back({f, w, std::move(show), std::move(showProblem), w->toolTip()});
}

QWidget* FormBinder::editorFor(Field f) const
{
    for (const auto& b : m_bindings)
        if (b.field == f)
            return b.widget;
    return nullptr;
}

QWidget* FormBinder::number(Field f, const QString& tip, double step, int scaleExponent, bool optional)
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
    n->setCheck([path = ScenarioModel::keyPath(f)](const QVariant& v) {
        return ScenarioModel::withLabel(scenarioValueProblem(path, v)); // the label, not the key path
    });
    connect(n, &NumberField::valueEdited, this, [this, f](const QVariant& v) {
        if (!m_updating)
            m_model->setValue(f, v);
    });
    bind(f, n, [n](const QVariant& v) { n->showValue(v); });
    return n->withMessageLine();
}

QComboBox* FormBinder::enumCombo(Field f, const std::vector<std::pair<QString, int>>& items, const QString& tip,
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

void FormBinder::showField(Field f)
{
    m_updating = true;
    for (const auto& b : m_bindings)
        if (b.field == f) {
            const QSignalBlocker block(b.widget);
            b.show(m_model->value(f));
        }
    m_updating = false;
}

void FormBinder::showAll()
{
    m_updating = true;
    for (const auto& b : m_bindings) {
        const QSignalBlocker block(b.widget);
        b.show(m_model->value(b.field));
    }
    m_updating = false;
}

void FormBinder::showProblems()
{
    for (const auto& b : m_bindings) {
        const QString msg = m_model->problemsFor(b.field);
        if (auto* n = qobject_cast<NumberField*>(b.widget)) {
            n->setModelProblem(msg);
            continue;
        }
        if (b.showProblem) {
            b.showProblem(msg);
            continue;
        }
        if (msg.isEmpty()) {
            b.widget->setStyleSheet(QString());
            b.widget->setToolTip(b.baseToolTip);
        } else {
            b.widget->setStyleSheet(invalidStyle(b.widget));
            b.widget->setToolTip(msg);
        }
    }
}

} // namespace gp::ui
