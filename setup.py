"""The one thing pyproject.toml cannot declare without a warning: the optional C codec.

A distinct call writes ~660 values into protobuf Structs, which protobuf's Python
API does at 0.3-0.7 us each (BENCHMARKS.md); function/codec/_structwire.c writes the
Struct's bytes directly. Optional: where no C compiler is found the build says so
and goes on, and function.codec.structs uses protobuf's API instead.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("function.codec._structwire", sources=["function/codec/_structwire.c"], optional=True)
    ]
)
