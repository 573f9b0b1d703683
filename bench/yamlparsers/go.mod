module github.com/kesoku/kesoku/bench/yamlparsers

go 1.26.0

require (
	github.com/goccy/go-yaml v1.19.2
	go.yaml.in/yaml/v3 v3.0.4
	go.yaml.in/yaml/v4 v4.0.0
)
