#pragma once
#include "ui/scenariomodel.h"

#include <QObject>
#include <QString>

#include <functional>
#include <utility>
#include <vector>

class QComboBox;
class QFormLayout;
class QWidget;

namespace gp::ui {

class NumberField;

/// The binding between the scenario form's widgets and a ScenarioModel, shared
/// by the form's groups: each bound widget has a function that shows the
/// model's value, edits go to the model unless the form is showing the model
/// (isUpdating()), and the model's problems are marked at the field.
class FormBinder final : public QObject
{
    Q_OBJECT
public:
    using Show = std::function<void(const QVariant&)>;
    /// Shows a field's problem ("" when none) where the default (a red frame and
    /// the message as tooltip on the widget) does not fit.
    using ShowProblem = std::function<void(const QString&)>;

    explicit FormBinder(ScenarioModel* model, QObject* parent = nullptr);

    ScenarioModel* model() const { return m_model; }
    /// True while the form shows the model: widget signals then are not edits.
    bool isUpdating() const { return m_updating; }
    void setUpdating(bool updating) { m_updating = updating; }

    void bind(ScenarioModel::Field f, QWidget* w, Show show, ShowProblem showProblem = {});
    /// A number entry bound to a field, checked by the core; `scaleExponent`: it
    /// shows value / 10^scaleExponent. Returns the field with its message line.
    QWidget* number(ScenarioModel::Field f, const QString& tip, double step = 1, int scaleExponent = 0,
                    bool optional = false);
    QComboBox* enumCombo(ScenarioModel::Field f, const std::vector<std::pair<QString, int>>& items, const QString& tip,
                         const QString& unsetLabel = {});
    /// A form layout whose label column is lined up with the panel's others (alignLabelColumns()).
    QFormLayout* newForm();
    /// Gives every label of the forms made by newForm() the widest one's width.
    void alignLabelColumns();

    /// The widget bound to a field (the first one); nullptr when none.
    QWidget* editorFor(ScenarioModel::Field f) const;

    /// Shows the model's value of one field, or of every field, in its widgets.
    void showField(ScenarioModel::Field f);
    void showAll();
    /// Marks every bound field with the model's problems for it.
    void showProblems();

    /// The style sheet that frames an invalid widget in red.
    static QString invalidStyle(const QWidget* w);

private:
    struct Binding {
        ScenarioModel::Field field;
        QWidget* widget;
        Show show;
        ShowProblem showProblem;
        QString baseToolTip;
    };

    ScenarioModel* m_model;
    std::vector<Binding> m_bindings;
    std::vector<QFormLayout*> m_forms;
    bool m_updating = false;
};

} // namespace gp::ui
