#include "catalogeditor.h"

#include "catalogoverlay.h"
#include "catalogtablemodel.h"

#include "core/hardware/userconfig.h"

#include <QComboBox>
#include <QDate>
#include <QDialogButtonBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPushButton>
#include <QRegularExpressionValidator>
#include <QSortFilterProxyModel>
#include <QTableView>
#include <QVBoxLayout>

#include <nlohmann/json.hpp>

namespace gp::ui {

CatalogEditor::CatalogEditor(QWidget* parent)
    : QDialog(parent)
    , m_model(new CatalogTableModel(this))
    , m_proxy(new QSortFilterProxyModel(this))
    , m_table(new QTableView(this))
    , m_pathLabel(new QLabel(this))
{
    setWindowTitle(tr("GPU catalog"));
    resize(1200, 640);
    m_reportError = [this](const QString& t, const QString& m) { QMessageBox::warning(this, t, m); };
    m_proxy->setSourceModel(m_model);
    m_proxy->setSortRole(CatalogTableModel::SortRole);
    m_proxy->setFilterKeyColumn(-1);
    m_proxy->setFilterCaseSensitivity(Qt::CaseInsensitive);
    m_table->setModel(m_proxy);
    m_table->setSortingEnabled(true);
    m_table->sortByColumn(CatalogTableModel::NameColumn, Qt::AscendingOrder);
    m_table->setAlternatingRowColors(true);
    m_table->verticalHeader()->hide();
    m_table->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed |
                             QAbstractItemView::AnyKeyPressed);
    m_table->setAccessibleName(tr("GPU catalog"));
    auto* filter = new QLineEdit(this);
    filter->setPlaceholderText(tr("Filter"));
    filter->setAccessibleName(tr("Filter catalog"));
    filter->setClearButtonEnabled(true);
    connect(filter, &QLineEdit::textChanged, m_proxy, &QSortFilterProxyModel::setFilterFixedString);

    auto* hint = new QLabel(tr("Double-click a price to edit it. Edits and custom GPUs are saved to your catalog overlay "
                               "and survive upgrades; the built-in catalog is never changed."),
                            this);
    hint->setWordWrap(true);
    m_pathLabel->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_pathLabel->setWordWrap(true);

    auto* add = new QPushButton(tr("&Add custom GPU..."), this);
    auto* save = new QPushButton(tr("&Save edits"), this);
    auto* reset = new QPushButton(tr("&Reset to built-in..."), this);
    reset->setToolTip(tr("Delete the overlay: every price edit and custom GPU is removed"));
    auto* close = new QDialogButtonBox(QDialogButtonBox::Close, this);
    connect(add, &QPushButton::clicked, this, &CatalogEditor::addCustomDialog);
    connect(save, &QPushButton::clicked, this, &CatalogEditor::saveEdits);
    connect(reset, &QPushButton::clicked, this, &CatalogEditor::resetOverlay);
    connect(close, &QDialogButtonBox::rejected, this, [this] {
        if (m_model->hasPendingEdits() &&
            QMessageBox::question(this, tr("Unsaved catalog edits"), tr("Save the price edits to your overlay?")) ==
                QMessageBox::Yes &&
            !saveEdits())
            return;
        reject();
    });

    auto* buttons = new QHBoxLayout;
    buttons->addWidget(add);
    buttons->addWidget(save);
    buttons->addWidget(reset);
    buttons->addStretch(1);
    buttons->addWidget(close);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(hint);
    layout->addWidget(filter);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_pathLabel);
    layout->addLayout(buttons);
    reload();
}

void CatalogEditor::reload()
{
    const UserCatalog loaded = loadUserCatalog(/*setAsideBad=*/false);
    m_model->setCatalog(loaded.catalog);
    m_table->resizeColumnsToContents();
    const QString& path = loaded.overlayPath;
    QString text = tr("Overlay: %1 (%2)").arg(QDir::toNativeSeparators(path),
                                               QFileInfo::exists(path) ? tr("in use") : tr("none yet"));
    for (const QString& w : loaded.problems)
        text += QStringLiteral("\n") + w;
    m_pathLabel->setText(text);
}

bool CatalogEditor::saveEdits()
{
    if (!m_model->hasPendingEdits())
        return true;
    const QString path = QString::fromStdString(gp::userOverlayPath());
    const QString error = mergeIntoOverlay(path, m_model->pendingEdits());
    if (!error.isEmpty()) {
        m_reportError(tr("Cannot save catalog edits"), error);
        return false;
    }
    reload();
    emit catalogChanged();
    return true;
}

bool CatalogEditor::addCustomGpu(const nlohmann::json& entry)
{
    const QString path = QString::fromStdString(gp::userOverlayPath());
    const QString error = mergeIntoOverlay(path, {entry});
    if (!error.isEmpty()) {
        m_reportError(tr("Cannot add the GPU"), error);
        return false;
    }
    reload();
    emit catalogChanged();
    return true;
}

void CatalogEditor::addCustomDialog()
{
    QDialog dlg(this);
    dlg.setWindowTitle(tr("Add custom GPU"));
    auto* form = new QFormLayout;
    auto* id = new QLineEdit(&dlg);
    id->setValidator(new QRegularExpressionValidator(QRegularExpression(QStringLiteral("[a-z0-9][a-z0-9.-]*")), id));
    id->setPlaceholderText(tr("lowercase-with-dashes"));
    auto* name = new QLineEdit(&dlg);
    auto* vendor = new QLineEdit(&dlg);
    auto* category = new QComboBox(&dlg);
    for (const char* c : {"datacenter", "workstation", "consumer", "tpu"})
        category->addItem(QString::fromLatin1(c));
    auto spin = [&](double max, int decimals, const QString& suffix) {
        auto* s = new QDoubleSpinBox(&dlg);
        s->setRange(0, max);
        s->setDecimals(decimals);
        s->setSuffix(suffix);
        return s;
    };
    auto* mem = spin(4096, 0, tr(" GB"));
    auto* bw = spin(100000, 0, tr(" GB/s"));
    auto* bf16 = spin(100000, 1, tr(" TFLOPS"));
    auto* fp16 = spin(100000, 1, tr(" TFLOPS"));
    auto* fp8 = spin(100000, 1, tr(" TFLOPS"));
    auto* fp32 = spin(100000, 1, tr(" TFLOPS"));
    auto* tdp = spin(5000, 0, tr(" W"));
    auto* price = spin(1000, 2, tr(" USD/h"));
    auto* purchase = spin(1e7, 0, tr(" USD"));
    form->addRow(tr("Id"), id);
    form->addRow(tr("Name"), name);
    form->addRow(tr("Vendor"), vendor);
    form->addRow(tr("Category"), category);
    form->addRow(tr("Memory"), mem);
    form->addRow(tr("Memory bandwidth"), bw);
    form->addRow(tr("BF16 dense"), bf16);
    form->addRow(tr("FP16 dense"), fp16);
    form->addRow(tr("FP8 dense"), fp8);
    form->addRow(tr("FP32"), fp32);
    form->addRow(tr("TDP"), tdp);
    form->addRow(tr("Typical rental"), price);
    form->addRow(tr("Purchase price"), purchase);
    auto* bb = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, &dlg);
    connect(bb, &QDialogButtonBox::accepted, &dlg, &QDialog::accept);
    connect(bb, &QDialogButtonBox::rejected, &dlg, &QDialog::reject);
    auto* l = new QVBoxLayout(&dlg);
    l->addLayout(form);
    l->addWidget(bb);
    if (dlg.exec() != QDialog::Accepted)
        return;
    nlohmann::json e = {{"id", id->text().toStdString()},
                        {"name", name->text().toStdString()},
                        {"vendor", vendor->text().toStdString()},
                        {"category", category->currentText().toStdString()},
                        {"memory_gb", mem->value()},
                        {"memory_bandwidth_gbps", bw->value()},
                        {"tdp_w", tdp->value()},
                        {"purchase_usd", purchase->value()},
                        {"sources", nlohmann::json::array({"user entry"})},
                        {"price_hour_usd",
                         {{"low", price->value()},
                          {"typical", price->value()},
                          {"high", price->value()},
                          {"providers", "user"},
                          {"seen", "user " + QDate::currentDate().toString(Qt::ISODate).toStdString()}}}};
    // null = not supported, as in the reference catalog
    auto peak = [&](const char* key, QDoubleSpinBox* s) { e[key] = s->value() > 0 ? nlohmann::json(s->value()) : nlohmann::json(); };
    peak("bf16_tflops", bf16);
    peak("fp16_tflops", fp16);
    peak("fp8_tflops", fp8);
    peak("fp32_tflops", fp32);
    addCustomGpu(e);
}

void CatalogEditor::resetOverlay()
{
    if (QMessageBox::question(this, tr("Reset catalog"),
                              tr("Delete your catalog overlay (all price edits and custom GPUs)?")) != QMessageBox::Yes)
        return;
    const QString error = removeOverlay(QString::fromStdString(gp::userOverlayPath()));
    if (!error.isEmpty()) {
        m_reportError(tr("Cannot reset the catalog"), error);
        return;
    }
    reload();
    emit catalogChanged();
}

} // namespace gp::ui
