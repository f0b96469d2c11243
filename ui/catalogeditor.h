#pragma once
#include <QDialog>

#include <nlohmann/json_fwd.hpp>

#include <functional>

class QLabel;
class QSortFilterProxyModel;
class QTableView;

namespace gp::ui {

class CatalogTableModel;

/// Tools → Catalog editor: every accelerator with specs, prices, sources and
/// dates; price edits and custom GPUs go to the user overlay (atomically), and
/// "Reset" removes the overlay. Emits catalogChanged after each write.
class CatalogEditor final : public QDialog
{
    Q_OBJECT
public:
    explicit CatalogEditor(QWidget* parent = nullptr);

    void setErrorReporter(std::function<void(const QString&, const QString&)> r) { m_reportError = std::move(r); }
    CatalogTableModel* model() const { return m_model; }

    /// Writes the pending price edits; returns false (and reports) on failure.
    bool saveEdits();
    /// Adds (or replaces) a custom GPU given as an overlay entry.
    bool addCustomGpu(const nlohmann::json& entry);

signals:
    void catalogChanged();

private:
    void reload();
    void addCustomDialog();
    void resetOverlay();

    CatalogTableModel* m_model;
    QSortFilterProxyModel* m_proxy;
    QTableView* m_table;
    QLabel* m_pathLabel;
    std::function<void(const QString&, const QString&)> m_reportError;
};

} // namespace gp::ui
