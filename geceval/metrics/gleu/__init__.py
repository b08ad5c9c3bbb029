"""GLEU: GLEU+ and charGLEU (:mod:`.plus`), GLEU 2015 (:mod:`.gleu2015`), gec-metrics' GLEU (:mod:`.green`),
the named public implementations (:mod:`.variants`), and their n-gram counts and sampled references."""
