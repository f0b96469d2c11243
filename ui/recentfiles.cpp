#include "recentfiles.h"

#include <QDir>
#include <QFileInfo>

namespace gp::ui {

RecentFiles::RecentFiles(int maxCount)
    : m_max(std::max(1, maxCount))
{
}

QString RecentFiles::normalized(const QString& path)
{
    return QDir::cleanPath(QFileInfo(path).absoluteFilePath());
}

void RecentFiles::add(const QString& path)
{
    if (path.isEmpty())
        return;
    const QString p = normalized(path);
    m_files.removeAll(p);
    m_files.prepend(p);
    while (m_files.size() > m_max)
        m_files.removeLast();
}

void RecentFiles::remove(const QString& path)
{
    m_files.removeAll(normalized(path));
}

void RecentFiles::clear()
{
    m_files.clear();
}

void RecentFiles::pruneMissing()
{
    m_files.erase(std::remove_if(m_files.begin(), m_files.end(), [](const QString& p) { return !QFileInfo::exists(p); }),
                  m_files.end());
}

void RecentFiles::setFiles(const QStringList& files)
{
    m_files.clear();
    // Oldest first so the first stays newest and duplicates collapse.
    for (auto it = files.crbegin(); it != files.crend(); ++it)
        add(*it);
}

} // namespace gp::ui
