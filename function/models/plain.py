"""What reads as a map or a list in plain data: a request's, or a view of a Struct.

dict and list come first: isinstance takes them by their type, without the ABCs'
machinery, which cost the cold path about 3 % of a call in the hundreds of checks
status and the checks make. A view of a Struct is still a Mapping.
"""

from __future__ import annotations

from collections.abc import Mapping

MAP = (dict, Mapping)
LIST = (list, tuple)
