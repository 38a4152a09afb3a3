"""The reader for any Netzwerk set: the default reader of a new calibration.

A field classifier trained on many random designs of our renderer
(:mod:`vision.anyset.fieldnet`, ONNX files in ``models/`` run by ``cv2.dnn``)
compares every square and point with a reference board whose content is known
(the calibration frame, later each accepted board); the two robot colours are
learned per set at calibration (:mod:`vision.anyset.colours`). Same interface
as :mod:`vision.calibration` / :mod:`vision.reader`: ``calibrate(image, layout,
corners=None, white_side=None, colours=None)`` and ``BoardReader(cal).read(frame)``.
``vision calibrate``, ``run`` and ``audit`` calibrate with it unless told
``--reader classic`` or the config's ``[calibration] reader`` (the synthetic
demo table keeps the classic reader); its figures (``benchmarks/vision_anyset.py``)
do not yet meet the issue's bar, see docs/readme-vision.md, "Any set".
"""
