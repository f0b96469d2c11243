// The yardstick for bench_cli_startup: a C++ program that links no Qt and
// prints a few lines through iostream, as `gpuplanner-cli gpus` does.
#include <iostream>

int main()
{
    std::cout << "id\tname\n";
    return 0;
}
