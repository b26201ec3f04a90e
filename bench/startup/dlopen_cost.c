/* Opens each library named on the command line (RTLD_NOW, as ktune's loaders do) and exits:
 * under GNU time, the cost a library adds to any process that maps it at start-up.
 *   dlopen_cost libcublasLt.so.13 */
#include <dlfcn.h>
#include <stdio.h>

int main(int argc, char** argv) {
    for (int i = 1; i < argc; ++i)
        if (!dlopen(argv[i], RTLD_NOW | RTLD_LOCAL)) {
            fprintf(stderr, "%s\n", dlerror());
            return 1;
        }
    return 0;
}
