package media

// PagedPDF is pagedPDF, for the tests of package media_test.
var PagedPDF = pagedPDF
