#include "numberfield.h"

#include "palette.h"

#include <QKeyEvent>
#include <QLabel>
#include <QLocale>
#include <QVBoxLayout>
#include <QWheelEvent>

#include <climits>
#include <cmath>

namespace gp::ui {

namespace {

double powerOfTen(int exponent)
{
    return std::pow(10.0, exponent);
}

} // namespace

NumberField::NumberField(Kind kind, QWidget* parent)
    : QLineEdit(parent)
    , m_kind(kind)
{
    setInputMethodHints(Qt::ImhFormattedNumbersOnly);
    connect(this, &QLineEdit::textEdited, this, &NumberField::textWasEdited);
    connect(this, &QLineEdit::editingFinished, this, [this] { m_before.reset(); });
}

void NumberField::setMessageLabel(QLabel* label)
{
    m_messageLabel = label;
    updateMarks();
}

QWidget* NumberField::withMessageLine()
{
    auto* box = new QWidget;
    auto* layout = new QVBoxLayout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->setSpacing(2);
    layout->addWidget(this);
    auto* message = new QLabel;
    message->setWordWrap(true);
    message->setStyleSheet(QStringLiteral("QLabel { color: %1; }").arg(statusColor(Status::Bad).name()));
    layout->addWidget(message);
    setMessageLabel(message);
    box->setFocusProxy(this); // a form label's buddy is the box
    return box;
}

std::optional<QVariant> NumberField::parse(const QString& text) const
{
    const QString t = text.trimmed();
    if (t.isEmpty())
        return QVariant();
    const QLocale locale;
    bool ok = false;
    const double shown = locale.toDouble(t, &ok);
    if (!ok || !std::isfinite(shown))
        return std::nullopt;
    double v = shown;
    if (m_scaleExponent != 0) {
        // Read "1.5" millions as the decimal 1.5e6, not as 1.5 * 1e6 (which may round differently).
        QString c = t;
        c.remove(locale.groupSeparator());
        c.replace(locale.decimalPoint(), QLatin1String("."));
        c.replace(locale.negativeSign(), QLatin1String("-"));
        c.replace(locale.positiveSign(), QLatin1String("+"));
        bool cOk = false;
        const double exact = c.contains(locale.exponential(), Qt::CaseInsensitive)
                                 ? shown * powerOfTen(m_scaleExponent)
                                 : QLocale::c().toDouble(c + QStringLiteral("e%1").arg(m_scaleExponent), &cOk);
        v = cOk ? exact : shown * powerOfTen(m_scaleExponent);
        if (!std::isfinite(v))
            return std::nullopt;
    }
    if (m_kind == Kind::Integer && std::floor(v) == v && std::abs(v) <= INT_MAX)
        return QVariant(static_cast<int>(v));
    return QVariant(v);
}

std::optional<double> NumberField::value() const
{
    bool ok = false;
    const double v = QLocale().toDouble(text().trimmed(), &ok);
    if (!ok || !std::isfinite(v))
        return std::nullopt;
    return v;
}

QString NumberField::format(const QVariant& modelValue) const
{
    if (!modelValue.isValid() || modelValue.isNull())
        return {};
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() | QLocale::OmitGroupSeparator);
    if (m_kind == Kind::Integer && m_scaleExponent == 0)
        return locale.toString(modelValue.toLongLong());
    const double shown = modelValue.toDouble() / powerOfTen(m_scaleExponent);
    return locale.toString(shown, 'f', QLocale::FloatingPointShortest);
}

void NumberField::showValue(const QVariant& v)
{
    m_shown = v;
    if (m_sending)
        return; // the model taking what was typed: the text stays as typed
    m_before.reset();
    const auto current = parse(text());
    const bool unset = !v.isValid() || v.isNull();
    const bool same = current && (current->isValid() ? !unset && current->toDouble() == v.toDouble() : unset);
    if (!same)
        setText(format(v));
    // The model holds what the field shows: nothing typed is pending.
    m_inputProblem.clear();
    updateMarks();
}

void NumberField::setValue(double shown)
{
    QLocale locale;
    locale.setNumberOptions(locale.numberOptions() | QLocale::OmitGroupSeparator);
    setText(m_kind == Kind::Integer ? locale.toString(static_cast<qlonglong>(std::llround(shown)))
                                    : locale.toString(shown, 'f', QLocale::FloatingPointShortest));
    textWasEdited(text());
}

void NumberField::stepBy(int steps)
{
    const auto current = value();
    if (!current && !text().trimmed().isEmpty())
        return; // unreadable text: leave it for the user to fix
    double next = current ? *current + steps * m_step : m_stepMin;
    if (next < m_stepMin) // a step down stops at the lowest step, and never goes up to it
        next = current ? std::min(*current, m_stepMin) : m_stepMin;
    // 0.7 + 0.05 is 0.7499999999999999 in binary; show what a person expects.
    next = QString::number(next, 'g', 12).toDouble();
    setValue(next);
}

void NumberField::textWasEdited(const QString& text)
{
    const auto v = parse(text);
    QString problem;
    if (!v) {
        problem = m_check ? m_check(text.trimmed()) : QString();
        if (problem.isEmpty())
            problem = tr("cannot read \"%1\" as a number").arg(text.trimmed());
        const QString hint = separatorHint(text.trimmed(), QLocale());
        if (!hint.isEmpty())
            problem += QLatin1Char(' ') + hint;
    } else if (!v->isValid() && !m_optional) {
        problem = m_check ? m_check(QVariant()) : QString();
        if (problem.isEmpty())
            problem = tr("a number is needed");
    } else if (v->isValid() && m_check) {
        problem = m_check(*v);
    }
    m_inputProblem = problem;
    updateMarks();
    if (!m_before)
        m_before = m_shown;
    const QVariant send = problem.isEmpty() ? *v : *m_before;
    const bool sendUnset = !send.isValid() || send.isNull();
    const bool shownUnset = !m_shown.isValid() || m_shown.isNull();
    if (sendUnset == shownUnset && (sendUnset || send.toDouble() == m_shown.toDouble()))
        return; // the model holds it already
    m_sending = true;
    emit valueEdited(send);
    m_sending = false;
}

QString NumberField::separatorHint(const QString& text, const QLocale& locale)
{
    const QString point = locale.decimalPoint();
    for (const QChar other : {QLatin1Char('.'), QLatin1Char(',')}) {
        if (point == QString(other) || !text.contains(other))
            continue;
        QString swapped = text;
        swapped.replace(other, point);
        bool ok = false;
        (void)locale.toDouble(swapped, &ok);
        if (ok)
            return tr("(the decimal separator here is \"%1\": type %2)").arg(point, swapped);
    }
    return QString();
}

void NumberField::setModelProblem(const QString& message)
{
    m_modelProblem = message;
    updateMarks();
}

QString NumberField::problem() const
{
    return m_inputProblem.isEmpty() ? m_modelProblem : m_inputProblem;
}

void NumberField::updateMarks()
{
    if (!m_baseToolTipSet) {
        m_baseToolTip = toolTip();
        m_baseToolTipSet = true;
    }
    const QString p = problem();
    // A mid-tone red frame reads on light and dark palettes.
    setStyleSheet(p.isEmpty() ? QString()
                              : QStringLiteral("QLineEdit { border: 2px solid %1; border-radius: 3px; }")
                                    .arg(statusColor(Status::Bad).name()));
    setToolTip(p.isEmpty() ? m_baseToolTip : p);
    setAccessibleDescription(p);
    if (m_messageLabel) {
        m_messageLabel->setText(p);
        m_messageLabel->setVisible(!p.isEmpty());
    }
}

void NumberField::keyPressEvent(QKeyEvent* event)
{
    switch (event->key()) {
    case Qt::Key_Up: stepBy(1); return;
    case Qt::Key_Down: stepBy(-1); return;
    case Qt::Key_PageUp: stepBy(10); return;
    case Qt::Key_PageDown: stepBy(-10); return;
    default: QLineEdit::keyPressEvent(event);
    }
}

void NumberField::wheelEvent(QWheelEvent* event)
{
    // Only a focused field takes the wheel: scrolling the form must not change values.
    const int dy = event->angleDelta().y();
    if (!hasFocus() || dy == 0) {
        event->ignore();
        return;
    }
    stepBy(dy > 0 ? 1 : -1);
    event->accept();
}

} // namespace gp::ui
