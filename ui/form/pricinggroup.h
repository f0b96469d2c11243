#pragma once
#include <QGroupBox>

namespace gp::ui {

class FormBinder;

/// The scenario form's "Pricing" group: how GPU hours are paid for.
class PricingGroup final : public QGroupBox
{
    Q_OBJECT
public:
    explicit PricingGroup(FormBinder* binder, QWidget* parent = nullptr);
};

} // namespace gp::ui
