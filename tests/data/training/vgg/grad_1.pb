Bfeatures.0.biasJ Ò`§²à%²ÇJ³¡^²ª
3Xgª2v±SÑš2