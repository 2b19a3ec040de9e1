"""The local Python's C headers (Debian's python3-dev) as @python_headers, for
the pybind11 module in //python. Found through the system Python's sysconfig,
never downloaded."""

def _python_headers_impl(ctx):
    python = "/usr/bin/python3" if ctx.path("/usr/bin/python3").exists else ctx.which("python3")
    include = ""
    if python:
        result = ctx.execute([python, "-c", "import sysconfig; print(sysconfig.get_path('include'))"])
        include = result.stdout.strip() if result.return_code == 0 else ""
    if include and ctx.path(include + "/Python.h").exists:
        ctx.symlink(include, "include")
    else:
        # No headers: the module's build fails naming the package to install.
        ctx.file("include/Python.h", "#error \"Python.h not found: apt-get install python3-dev (./bazelw installs it)\"\n")
    ctx.file("BUILD", """cc_library(
    name = "python_headers",
    hdrs = glob(["include/**/*.h"]),
    includes = ["include"],
    visibility = ["//visibility:public"],
)
""")

python_headers = repository_rule(implementation = _python_headers_impl, local = True)
