"""The one thing pyproject.toml cannot declare without a warning: the optional C encoder.

function/codec/_structwire.c writes the function's composed resources as protobuf
Struct bytes directly, far faster than protobuf's Python API (BENCHMARKS.md).
Optional: where no C compiler is found the build says so and goes on, and
function.codec.structs uses protobuf's API instead.
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "function.codec._structwire", sources=["function/codec/_structwire.c"], optional=True
        )
    ]
)
