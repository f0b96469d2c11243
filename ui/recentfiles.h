#pragma once
#include <QStringList>

namespace gp::ui {

/// Most-recently-used file list: newest first, no duplicates (same absolute
/// path), at most maxCount entries.
class RecentFiles
{
public:
    explicit RecentFiles(int maxCount = 10);

    void add(const QString& path);
    void remove(const QString& path);
    void clear();
    /// Drops entries whose file no longer exists.
    void pruneMissing();

    void setFiles(const QStringList& files);
    const QStringList& files() const { return m_files; }
    int maxCount() const { return m_max; }

private:
    static QString normalized(const QString& path);

    QStringList m_files;
    int m_max;
};

} // namespace gp::ui
