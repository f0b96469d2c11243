#pragma once
// Files for the tests that write and read them (tst_hostileinput,
// tst_cli_calibrate, tst_cli_launch, tst_cli_record): a whole file read or
// written, and a temporary folder a test class derives from beside QObject, which
// names the files in it and keeps the user's catalog overlay out of the test.
#include <QByteArray>
#include <QLatin1Char>
#include <QString>
#include <QTemporaryDir>
#include <QtGlobal>

#include <fstream>
#include <sstream>
#include <string>

namespace gp::test {

/// The bytes of a file ("" when it cannot be read).
inline std::string readFile(const std::string& path)
{
    std::ifstream in(path, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

/// Replaces a file with `text`.
inline void writeFile(const std::string& path, const std::string& text)
{
    std::ofstream out(path, std::ios::binary);
    out << text;
}

/// A temporary folder for one test class: `class TestX : public QObject, protected gp::test::TempFiles`.
class TempFiles {
protected:
    QTemporaryDir m_tmp;
    /// A file (or folder) in the temporary folder.
    std::string path(const std::string& name) const
    {
        return (m_tmp.path() + QLatin1Char('/') + QString::fromStdString(name)).toStdString();
    }
    /// Points GPUPLANNER_CATALOG_OVERLAY at a file that does not exist, so the
    /// developer's own overlay cannot change what the test sees.
    static void hideCatalogOverlay() { qputenv("GPUPLANNER_CATALOG_OVERLAY", "/nonexistent/gpuplanner-test-overlay.json"); }
};

} // namespace gp::test
