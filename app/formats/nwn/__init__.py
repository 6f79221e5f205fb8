"""Neverwinter Nights models (``.mdl``), compiled or text: ``binary`` and ``ascii`` read the two forms
into the one parsed form of ``nodes``, which builds the Model; ``supermodels`` loads several files as
one model (lenders, the supermodel chain)."""
