// Package deploy holds no code: its directory holds the container image (Dockerfile) and the
// Kubernetes manifests (k8s/) that docs/kubernetes.md shows verbatim, and its tests keep them
// honest: the manifests decode strictly as Kubernetes objects and fit together, the documented
// shard → summarize flow runs with local processes and prints what an unsharded sweep prints,
// and the Dockerfile builds the command the README names.
package deploy
