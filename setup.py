"""Build the Cython search core (and, see build hooks, generated code)."""

from Cython.Build import cythonize
from setuptools import Extension, setup

extensions = [
    Extension("solver._core", ["solver/_core.pyx"], extra_compile_args=["-O3"]),
]

setup(ext_modules=cythonize(extensions, compiler_directives={"language_level": "3"}))
