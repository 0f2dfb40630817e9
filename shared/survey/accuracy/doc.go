// Package accuracy holds the accuracy report of the survey models: a test
// (accuracy_test.go) that measures the DLS model, the NTS grid and
// Manitoba's quarters against the team's ground truth (real wells and
// official centroids, read from the shared directory beside the
// repository), prints the table shared/DATA.md shows ("Accuracy report"), and fails when any figure
// drops below the floor recorded beside it:
//
//	go test ./shared/survey/accuracy -run TestAccuracyReport -v
//
// The package has no code of its own: the figures belong to the models
// (survey/dls, survey/nts), the report to the repository.
package accuracy
