// A decoy shared library: copied under the names of the libraries ktune loads into a scratch
// working directory. Loading it from there is the hijack check_no_cwd_load.sh looks for.
#include <unistd.h>

namespace {
[[gnu::constructor]] void decoy_loaded() {
    static const char msg[] = "DECOY LIBRARY LOADED FROM THE WORKING DIRECTORY\n";
    (void)!::write(2, msg, sizeof msg - 1);
    ::_exit(99);
}
} // namespace
