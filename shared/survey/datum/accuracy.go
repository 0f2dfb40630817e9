package datum

// AccuracyM is the accuracy of NRCan's NTv1 NAD27 to NAD83 transformation
// in metres, as the EPSG dataset records it for transformation 1312
// ("NAD27 to NAD83 (3)", method NTv1, information source Geomatics Canada,
// Geodetic Survey Division): 2.0 m. It bounds how far a position moved by
// Canada's grid can be from its published NAD83 coordinates; this package
// adds 7 µm of its own (checked against PROJ), nothing at this scale.
const AccuracyM = 2.0
