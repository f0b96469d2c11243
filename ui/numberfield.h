#pragma once
#include <QLineEdit>
#include <QLocale>
#include <QVariant>

#include <functional>
#include <optional>

class QLabel;

namespace gp::ui {

/// A number entry that keeps what the user types. The text is read in the
/// user's locale (QLocale(): its decimal separator, group separator and signs);
/// each readable value that passes the check is sent with valueEdited as the
/// user types, and anything else stays in the field, marked, with the check's
/// message shown at the field: nothing is clamped, rounded or dropped. While
/// the text is wrong the model holds the value from before the typing began
/// ("1" on the way to a refused "1.5" is taken back).
class NumberField final : public QLineEdit
{
    Q_OBJECT
public:
    enum class Kind { Integer, Decimal };
    /// The problem with a value ("" when fine). The value is an int or double in
    /// model units, a QString for text that is not a number, or an invalid
    /// QVariant for an empty required field.
    using Check = std::function<QString(const QVariant&)>;

    explicit NumberField(Kind kind, QWidget* parent = nullptr);

    /// Empty text means "not set" (an invalid QVariant) instead of a problem.
    void setOptional(bool optional) { m_optional = optional; }
    /// The field shows value / 10^exponent (millions of tokens: 6); what is sent
    /// is the typed decimal times 10^exponent, read exactly.
    void setScaleExponent(int exponent) { m_scaleExponent = exponent; }
    void setCheck(Check check) { m_check = std::move(check); }
    /// Arrow keys and the wheel add or subtract this (in shown units), never below stepMinimum.
    void setSingleStep(double step) { m_step = step; }
    double singleStep() const { return m_step; }
    void setStepMinimum(double min) { m_stepMin = min; }
    /// A label (owned by the caller's layout) that shows the problem under the field.
    void setMessageLabel(QLabel* label);
    /// Puts the field in a new box with a message label under it (hidden while
    /// there is no problem); returns the box, to place in a layout.
    QWidget* withMessageLine();

    /// Shows a model value (invalid = unset) unless the text already reads as it.
    void showValue(const QVariant& v);
    /// Enters a value (shown units) as if typed: checked, then sent.
    void setValue(double shown);
    void stepBy(int steps);
    void stepUp() { stepBy(1); }
    void stepDown() { stepBy(-1); }
    /// The number the text reads as, in shown units; unset when empty or unreadable.
    std::optional<double> value() const;

    /// A problem with the model's value found elsewhere (cross-field rules); the
    /// problem with the typed text, if any, is shown first.
    void setModelProblem(const QString& message);
    /// What the field shows as wrong now ("" when nothing).
    QString problem() const;
    /// The problem with the typed text ("" when the model took it): while it is
    /// set, the model holds the value from before the typing.
    QString inputProblem() const { return m_inputProblem; }
    /// For text the locale cannot read: a hint when it reads with the other
    /// decimal separator ("2.5" where it is ","), else "".
    static QString separatorHint(const QString& text, const QLocale& locale);

    /// Text for a value in the locale (no group separators, shortest exact digits).
    QString format(const QVariant& modelValue) const;

signals:
    /// A readable, checked value the user typed (model units; invalid = unset).
    void valueEdited(const QVariant& value);

protected:
    void keyPressEvent(QKeyEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;

private:
    /// The model value the text reads as; nullopt when it is not a number.
    std::optional<QVariant> parse(const QString& text) const;
    void textWasEdited(const QString& text);
    void updateMarks();

    Kind m_kind;
    bool m_optional = false;
    int m_scaleExponent = 0;
    double m_step = 1;
    double m_stepMin = 0;
    Check m_check;
    QLabel* m_messageLabel = nullptr;
    QVariant m_shown;                  // the model's value, as last shown
    std::optional<QVariant> m_before;  // the model's value when the current typing began
    bool m_sending = false;
    QString m_inputProblem;
    QString m_modelProblem;
    QString m_baseToolTip;
    bool m_baseToolTipSet = false;
};

} // namespace gp::ui
