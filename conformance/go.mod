module github.com/kesoku/kesoku/conformance

go 1.26.0
