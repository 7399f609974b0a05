"""The kernel's side of starting the servant: the shipped modules become a private package there.

The grader (autograder.checks.link.servant_cell) runs `__wb_boot`'s source, exactly as written
below, as one cell in the learner's kernel after their notebook, calls it with the text of each
module it ships (arrays, codec, servant) and deletes it: the package `_wb_shipped` lives only in
`sys.modules`, and the servant opens its channel on the kernel. Only the function is sent; this
module's other lines never reach the kernel.
"""

# ruff: noqa: E401, I001 - the function is sent as it is written (one import line, as before)

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # a builtin in the kernel (IPython's); named here for the linters only

    def get_ipython() -> Any: ...


# fmt: off
def __wb_boot(files):
    import sys, types
    package = types.ModuleType("_wb_shipped")
    package.__path__ = []
    sys.modules[package.__name__] = package
    for name, source in files.items():
        module = types.ModuleType(f"_wb_shipped.{name}")
        module.__package__ = package.__name__
        sys.modules[module.__name__] = module
        setattr(package, name, module)
        exec(compile(source, f"<workbook {name}>", "exec"), module.__dict__)
    package.servant.open_channel(get_ipython().kernel, globals())
# fmt: on
